/**
 * The `verifyTask` activity: the verifier. After a task's steps have run, it checks the task's acceptance criteria
 * (src/domain/acceptance.ts) against the steps' data, read from the content store by reference (small results come
 * inline), and a path criterion against the file system, resolved against the run's workspace root.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { withPlannerFailures } from '../api/failures';
import { checkCriterion, type CriterionResult } from '../domain/acceptance';
import { InvalidInputError, formatZodIssues } from '../domain/errors';
import { AcceptanceCriterionSchema } from '../domain/plan';
import { StepResultSchema } from '../domain/step-execution';
import type { ContentStore } from '../store/content-store';

export const VerifyTaskInputSchema = z.strictObject({
  task: z.string().min(1).max(64),
  criteria: z.array(AcceptanceCriterionSchema).max(200),
  /** The results of the steps the criteria name, by step id. */
  results: z.record(z.string().max(64), StepResultSchema.pick({ ref: true, data: true })),
  workspace_root: z.string().max(4_096).optional(),
});
export type VerifyTaskInput = z.input<typeof VerifyTaskInputSchema>;

export function createVerifierActivities(deps: { store: ContentStore }) {
  async function verifyTask(raw: VerifyTaskInput): Promise<CriterionResult[]> {
    const parsed = VerifyTaskInputSchema.safeParse(raw);
    if (!parsed.success) {
      throw new InvalidInputError(
        'verifyTask: invalid input',
        'The workflow sent input this worker does not understand; check that workflow and worker versions match.',
        { issues: formatZodIssues(parsed.error) },
      );
    }
    const input = parsed.data;
    const data = new Map<string, { data: unknown }>();
    for (const [id, result] of Object.entries(input.results)) {
      data.set(id, { data: result.data !== undefined ? result.data : await deps.store.get(result.ref) });
    }
    const root = input.workspace_root ?? process.cwd();
    return input.criteria.map((c) =>
      checkCriterion(
        c,
        (id) => data.get(id),
        (p) => existsSync(path.resolve(root, p)),
      ),
    );
  }
  return { verifyTask: withPlannerFailures(verifyTask) };
}
