/**
 * The state continue-as-new carries (`input.resume`), checked before a run trusts it.
 *
 * Design: a resume is accepted only on a run Temporal continued from an earlier one —
 * `workflowInfo().continuedFromExecutionRunId`, which the server sets and no client can — and never on a cron run
 * (a cron run is "continued" with the first run's input, which a client wrote). Such a run is started only by this
 * workflow's own `continueAsNew` in planning.ts, so the state was built by PlanningRun and its plan came out of
 * `generatePlan` or a person's plan checked by `checkPlan` (./plan-edits.ts), neither of which lets through a plan that
 * fails `validatePlan` against the catalog; the plan needs no second validation, and a client-made `resume` never
 * gets that far: it fails the run at once (PLAN-006, non-retryable) instead of executing an unvalidated plan or
 * failing workflow tasks forever. As a second line, the carried state is
 * parsed with a bounded zod schema (known stages, a well-formed request, plans, budget and options, bounded lists)
 * and must name this workflow; a state that does not parse fails the run the same way. The parse only checks: the
 * run continues with the carried object as it is, so replays see exactly what the earlier run wrote.
 */
import { workflowInfo } from '@temporalio/workflow';
import { z } from 'zod';
import { sharedSchema } from '../domain/shared-schema';
import { planFailureToApplicationFailure } from '../api/failures';
import { PlanningOptionsSchema, type PlanningWorkflowInput } from '../api/input';
import type { PlanningState } from '../api/state';
import { ToolBudgetSchema, UsageSchema } from '../domain/budget';
import { InvalidInputError, formatZodIssues } from '../domain/errors';
import { PlanSchema } from '../domain/plan';
import { PlanningRequestSchema } from '../domain/request';
import { STAGES } from '../domain/stages';

const LIST_MAX = 10_000;
const list = <T extends z.ZodType>(item: T) => z.array(item).max(LIST_MAX);
const stage = sharedSchema('workflows/resume#stage', () => z.enum(STAGES));

export const ResumeStateSchema = sharedSchema('workflows/resume#ResumeStateSchema', () =>
  z.looseObject({
    workflow_id: z.string().min(1).max(1_000),
    stage: stage.exclude(['CREATED', 'COMPLETED', 'FAILED', 'CANCELLED']),
    stage_before_budget: stage.nullable(),
    request: PlanningRequestSchema,
    // Runs started by an older worker lack newer options; their defaults apply where they are read.
    options: PlanningOptionsSchema.partial(),
    plan: PlanSchema.nullable(),
    versions: list(z.looseObject({ version: z.number().int().min(1), plan: PlanSchema })),
    archived_versions: list(z.looseObject({ version: z.number().int().min(1), ref: z.string().max(100) })).optional(),
    archived_version_pages: list(
      z.looseObject({ first_version: z.number().int(), last_version: z.number().int(), ref: z.string().max(100) }),
    ).optional(),
    steps: list(z.looseObject({ index: z.number().int().min(0), id: z.string() })),
    budget: ToolBudgetSchema,
    budget_needed: UsageSchema.nullable(),
    audit: list(z.looseObject({ at: z.string(), kind: z.string(), message: z.string() })).max(100_000),
    warnings: list(z.string()),
    refinements: z.number().int().min(0),
    replans: z.number().int().min(0),
    continued_as_new: z.number().int().min(0),
    effect_chain: z.string().min(1).max(1_000).optional(),
    given_plan: z.looseObject({ plan: PlanSchema }).nullable().optional(),
  }),
);

function refuse(message: string): never {
  throw planFailureToApplicationFailure(
    new InvalidInputError(
      message,
      'Start a run with {"request": {…}, "options": {…}}; `resume` is set only by the workflow itself when it continues as new.',
    ),
  );
}

/** The carried state of a run continued as new, checked; null for a new run. Throws the run's PLAN-006 failure. */
export function resumedState(input: PlanningWorkflowInput | null | undefined): PlanningState | null {
  if (input === null || typeof input !== 'object' || !('resume' in input) || input.resume === undefined) return null;
  const info = workflowInfo();
  if (!info.continuedFromExecutionRunId || info.cronSchedule) {
    refuse('invalid workflow input: `resume` is accepted only on a run this workflow continued as new');
  }
  const parsed = ResumeStateSchema.safeParse(input.resume);
  if (!parsed.success) refuse(`invalid carried state: ${formatZodIssues(parsed.error).slice(0, 10).join('; ')}`);
  if (parsed.data.workflow_id !== info.workflowId)
    refuse(`invalid carried state: it belongs to workflow ${parsed.data.workflow_id}, not ${info.workflowId}`);
  return input.resume;
}
