/**
 * The planner's workflow bundle is slim in memory (src/workflow-bundle.ts): one byte per character, a source map of
 * positions only. What the workflow code means, and where its stack traces point, stay as written.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { unicodeEscape } from '../../src/workflow-bundle';
import { wideCharactersWorkflow } from '../fixtures/probe-workflows';
import { connectClient, startTestWorker, uniqueTaskQueue } from '../support/temporal';

const bundle = () => readFileSync(process.env.PLANNER_TEST_BUNDLE!, 'utf8');

function inlineSourceMap(code: string): { sources: string[]; mappings: string; sourcesContent?: unknown } {
  const url = code.slice(code.lastIndexOf('//# sourceMappingURL=data:'));
  return JSON.parse(Buffer.from(url.slice(url.indexOf('base64,') + 'base64,'.length), 'base64').toString()) as never;
}

test('the bundle holds one byte per character: wide characters are written as escapes', () => {
  const code = bundle();
  expect(code).not.toMatch(/[^\u0000-\u00ff]/);
  // src/workflows/details.ts truncates with '…': there it is, escaped.
  expect(code).toContain(`${unicodeEscape('…')}\``);
  expect(unicodeEscape('→')).toBe('\\u2192');
});

test("the bundle's source map keeps every file's positions and leaves the sources out", () => {
  const map = inlineSourceMap(bundle());
  expect(map.sources).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/src\/workflows\/run\.ts$/),
      expect.stringMatching(/test\/fixtures\/probe-workflows\.ts$/),
    ]),
  );
  expect(map.mappings.length).toBeGreaterThan(100_000);
  expect(map.sourcesContent).toBeUndefined();
});

test('a bundled workflow reads its wide characters as written, and its stack trace points at the source line', async () => {
  const taskQueue = uniqueTaskQueue('wide-characters');
  const worker = await startTestWorker(taskQueue);
  const client = await connectClient();
  try {
    const result = await client.workflow.execute(wideCharactersWorkflow, { taskQueue, workflowId: `${taskQueue}-run` });
    const plain = await wideCharactersWorkflow();
    const { thrownAt, ...text } = result;
    const { thrownAt: _plainThrownAt, ...plainText } = plain;
    expect(text).toEqual(plainText);
    expect(text).toMatchObject({
      literal: 'shipments → contaminants … done — ok',
      regex: 'b',
      characterClass: ['a', 'b', 'c'],
      beyondBmp: [2, true, 0x1f4e6],
    });
    const source = path.join(__dirname, '..', 'fixtures', 'probe-workflows.ts');
    const line =
      readFileSync(source, 'utf8')
        .split('\n')
        .findIndex((l) => l.includes('// wide-characters-stack-line')) + 1;
    expect(thrownAt).toMatch(new RegExp(`test/fixtures/probe-workflows\\.ts:${line}:\\d+\\)?$`));
  } finally {
    await worker.stop();
    await client.connection.close();
  }
});
