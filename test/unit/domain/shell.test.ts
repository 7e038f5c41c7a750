/**
 * Suggested commands: run-provided values are shell-quoted (a pasted command gets the value as one argument and runs
 * nothing else), and step ids a model writes follow the id grammar.
 */
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { PlanSchemaError } from '../../../src/domain/errors';
import { parsePlanJson } from '../../../src/domain/plan';
import { shellQuote } from '../../../src/domain/shell';
import { validatePlan } from '../../../src/domain/validation';
import { catalog, validPlanInput } from '../../support/plans';

/** What `sh` passes a program for the word `word`. */
const shellWord = (word: string) => execFileSync('sh', ['-c', `printf %s ${word}`], { encoding: 'utf8' });

describe('shellQuote', () => {
  it('leaves ids made of plain characters as they are', () => {
    for (const id of ['plan-m1x2-ab12cd', '1.2', 'weekly_report', 'a/b:c@d,e%f+g']) expect(shellQuote(id)).toBe(id);
  });

  it("single-quotes anything else, a quote inside as '\\''", () => {
    expect(shellQuote('q2;touch pwned;echo 1')).toBe("'q2;touch pwned;echo 1'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote('')).toBe("''");
    expect(shellQuote('$(id)`id`~=*')).toBe("'$(id)`id`~=*'");
  });

  it('gives sh the value itself as one word, for any text', () => {
    expect(shellWord(shellQuote('q2;touch pwned;echo 1'))).toBe('q2;touch pwned;echo 1');
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...';&|$`\'"\\ \t\n*?[]{}()<>~#=!%a1-_.:/@'), maxLength: 30 }),
        (text) => {
          expect(shellWord(shellQuote(text))).toBe(text);
        },
      ),
      { seed: 33, numRuns: 40 },
    );
  });
});

describe('step ids a model writes', () => {
  const planWithStepId = (id: string) => {
    const plan = validPlanInput();
    plan.tasks[0]!.steps[0]!.id = id;
    return plan;
  };

  it.each(['q2;touch pwned;echo 1', 'a b', '$(id)', '-1', 'k:1', 'x'.repeat(65), ''])(
    'refuses %j as a validation issue (SCHEMA) and as a schema error of the reply',
    (id) => {
      const issues = validatePlan(planWithStepId(id), { catalog });
      expect(issues).toEqual([
        expect.objectContaining({
          code: 'SCHEMA',
          message: expect.stringMatching(/^tasks\[0\]\.steps\[0\]\.id: a step id is 1–64 letters, digits/),
        }),
      ]);
      expect(() => parsePlanJson(JSON.stringify(planWithStepId(id)))).toThrow(PlanSchemaError);
    },
  );

  it.each(['1.1', 'fetch-shipments', 'A_2', 'x'.repeat(64)])('accepts %j', (id) => {
    expect(validatePlan(planWithStepId(id), { catalog })).toEqual([]);
  });
});
