/** How a planning run behaves: approval, refinement and re-plan limits, timeouts. Part of the workflow's input. */
import { z } from 'zod';

const ms = z.number().int().min(0).max(365 * 24 * 60 * 60_000);

export const PlanningOptionsSchema = z
  .object({
    require_approval: z.boolean(),
    max_refinements: z.number().int().min(0).max(20),
    max_replans: z.number().int().min(0).max(20),
    max_clarifications: z.number().int().min(0).max(20),
    strict_critique: z.boolean(),
    clarification_timeout_ms: ms,
    approval_timeout_ms: ms,
    budget_timeout_ms: ms,
    step_start_to_close_ms: ms.min(1),
    step_heartbeat_ms: ms.min(1),
    /** Continue as new once history has this many events (Temporal's own suggestion also triggers it). */
    continue_as_new_after_events: z.number().int().min(10),
    /**
     * Publish PlanStage & co. Turn off for a namespace without them registered (upserting an unknown search
     * attribute fails every workflow task) and on Temporal's time-skipping test server, which cannot register any.
     */
    search_attributes: z.boolean(),
  })
  .strict();
export type PlanningOptions = z.output<typeof PlanningOptionsSchema>;

export const DEFAULT_PLANNING_OPTIONS: PlanningOptions = {
  require_approval: false,
  max_refinements: 2,
  max_replans: 2,
  max_clarifications: 3,
  strict_critique: false,
  clarification_timeout_ms: 60 * 60_000,
  approval_timeout_ms: 24 * 60 * 60_000,
  budget_timeout_ms: 60 * 60_000,
  step_start_to_close_ms: 5 * 60_000,
  step_heartbeat_ms: 20_000,
  continue_as_new_after_events: 5_000,
  search_attributes: true,
};
