/** Results a step gets without a tool: a noop's null and a person's text, built in workflow code without Node. */
import { INLINE_RESULT_BYTES, NULL_RESULT_REF, PREVIEW_CHARS, textResult } from '../../../src/domain/step-execution';
import { utf8Length } from '../../../src/domain/text';
import { contentAddress } from '../../../src/store/content-store';

test("a noop's result ref is the content address of null", () => {
  expect(NULL_RESULT_REF).toBe(contentAddress(null).ref);
  expect(textResult(null, NULL_RESULT_REF)).toMatchObject({
    ref: NULL_RESULT_REF,
    bytes: 4,
    data: null,
    preview: 'null',
    items: null,
  });
});

test('utf8Length counts what Buffer counts, for every width of character', () => {
  for (const text of ['', 'plain', 'Müll', '汚染', '🛢️ drums', '"quoted"\n'])
    expect(utf8Length(text)).toBe(Buffer.byteLength(text, 'utf8'));
});

test("a person's text is inlined when small and previewed; a large one is left to the store under its ref", () => {
  const small = 'Yes, ship it';
  expect(textResult(small, contentAddress(small).ref)).toMatchObject({
    bytes: contentAddress(small).bytes,
    data: small,
    preview: '"Yes, ship it"',
  });
  const large = 'x'.repeat(INLINE_RESULT_BYTES + 1);
  const result = textResult(large, contentAddress(large).ref);
  expect(result.bytes).toBe(contentAddress(large).bytes);
  expect(result).not.toHaveProperty('data');
  expect(result.preview).toHaveLength(PREVIEW_CHARS);
});
