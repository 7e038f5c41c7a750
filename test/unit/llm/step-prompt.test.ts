/** The input of an `llm` step: its dependencies' data fitted into a token budget, cuts marked, and the prompt around it. */
import { countTokens } from '../../../src/tools/workspace/tokens';
import { fitInputs, llmStepMessages } from '../../../src/llm/step-prompt';

const rows = (n: number) =>
  JSON.stringify(Array.from({ length: n }, (_, i) => ({ id: `S${i}`, contaminant: 'lead', kg: i })));

describe('fitInputs', () => {
  test('inputs that fit the budget pass whole, unmarked', () => {
    const fitted = fitInputs([{ label: 'step 0', ref: 'sha256:a', text: rows(3) }], 1_000);
    expect(fitted[0]).toMatchObject({ text: rows(3), truncated: false, shown_tokens: countTokens(rows(3)) });
  });

  test('over the budget, the small input keeps all it needs and the large one is cut and says so, with its ref', () => {
    const small = rows(2);
    const large = rows(500);
    const budget = 400;
    const [a, b] = fitInputs(
      [
        { label: 'step 0', ref: 'sha256:large', text: large },
        { label: 'step 1', ref: 'sha256:small', text: small },
      ],
      budget,
    );
    expect(b).toMatchObject({ text: small, truncated: false });
    expect(a!.truncated).toBe(true);
    expect(a!.shown_tokens).toBe(budget - countTokens(small));
    expect(a!.tokens).toBe(countTokens(large));
    expect(a!.text).toMatch(
      new RegExp(`\\[truncated: ${a!.shown_tokens} of ${a!.tokens} tokens shown; the full data is sha256:large\\]$`),
    );
    expect(large.startsWith(a!.text.slice(0, a!.text.indexOf('\n[truncated')))).toBe(true);
  });
});

test('the prompt carries the goal, the instruction, the expected output and each input under its label and ref', () => {
  const [system, user] = llmStepMessages(
    {
      goal: 'Report contaminated shipments',
      title: 'Summarize',
      instruction: 'Summarize the rows by contaminant',
      expected_output: 'a short paragraph',
    },
    fitInputs([{ label: 'step 0', ref: 'sha256:r', text: rows(2) }], 1_000),
  );
  expect(system!.role).toBe('system');
  expect(user!.content).toContain('Instruction: Summarize the rows by contaminant');
  expect(user!.content).toContain('Expected output: a short paragraph');
  expect(user!.content).toContain(`### step 0 (sha256:r)\n${rows(2)}`);
});
