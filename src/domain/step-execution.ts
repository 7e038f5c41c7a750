/**
 * The contract between the workflow's DAG scheduler and the tool workers: what `executeStep` receives and returns.
 * Params travel unresolved; the worker loads the dependencies' results from the content store by reference and
 * resolves `${step[N]...}` templates itself, so large results never pass through workflow history.
 */
import { z } from 'zod';
import { sharedSchema } from './shared-schema';
import { UsageSchema, ZERO_USAGE } from './budget';
import { canonicalJson } from './canonical-json';
import { utf8Length } from './text';

/** A stored result: the full `data` lives in the content-addressed store under `ref`; small data is also inlined. */
export const StepResultSchema = sharedSchema('domain/step-execution#StepResultSchema', () =>
  z.object({
    /** Content address of the full result data, e.g. "sha256:ab12…". */
    ref: z.string().min(1),
    bytes: z.number().int().nonnegative(),
    /** Row count when the data is an array. */
    items: z.number().int().nonnegative().nullable(),
    /** At most a few hundred characters of the data as JSON, for state queries and the Web UI. */
    preview: z.string(),
    /** The data itself when it is small (see INLINE_RESULT_BYTES); otherwise read it from the store by `ref`. */
    data: z.unknown().optional(),
    usage: UsageSchema,
    /** The key the tool saw; the same across retries of this step, so side effects happen once. */
    idempotency_key: z.string(),
    /** True when the tool had already done this (same key) and returned its earlier result. */
    replayed: z.boolean(),
    /** The activity attempt that produced it (1: no retry); absent from results recorded before it was kept. */
    attempts: z.number().int().min(1).optional(),
  }),
);
export type StepResult = z.output<typeof StepResultSchema>;

export const INLINE_RESULT_BYTES = 2_048;

export const PREVIEW_CHARS = 300;

/** At most PREVIEW_CHARS characters of the data's JSON, with an ellipsis when cut. */
export function previewOf(text: string): string {
  return text.length <= PREVIEW_CHARS ? text : `${text.slice(0, PREVIEW_CHARS - 1)}…`;
}

/**
 * A step result that a person gave as text (a `human` step's answer, a decision's note), stored under `ref` (the
 * content address of `text`); null for a step that produced nothing, inlined.
 */
export function textResult(text: string | null, ref: string, idempotencyKey = ''): StepResult {
  const json = canonicalJson(text);
  const bytes = utf8Length(json);
  return {
    ref,
    bytes,
    items: null,
    preview: previewOf(json),
    ...(bytes <= INLINE_RESULT_BYTES ? { data: text } : {}),
    usage: ZERO_USAGE,
    idempotency_key: idempotencyKey,
    replayed: false,
  };
}

/** The content address of `null` (sha256 of "null"): a `noop` step's result, always inline, never read from a store. */
export const NULL_RESULT_REF = 'sha256:74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b';

/**
 * The idempotency scope of a step's first attempt (a person's retry gets a fresh one): `<chain>/<workflow id>:<step
 * id>`, where the run's chain (`<namespace>/<first run id>`, src/workflows/effect-keys.ts) sets apart a new run under
 * a reused workflow id and the same id in another namespace sharing the ledger. Runs started before it have none
 * (`<workflow id>:<step id>`), and that is the default a worker assumes when the input names no scope.
 */
export function defaultIdempotencyScope(workflowId: string, stepId: string, chain?: string): string {
  return chain === undefined ? `${workflowId}:${stepId}` : `${chain}/${workflowId}:${stepId}`;
}

/** The scope a step runs under: the one its input names, else the default (`workflowId`: the activity's). */
export function idempotencyScopeOf(input: { idempotency_scope?: string; step_id: string }, workflowId: string): string {
  return input.idempotency_scope ?? defaultIdempotencyScope(workflowId, input.step_id);
}

/**
 * Runs send only what the worker cannot know itself (src/workflows/step-inputs.ts): no workflow id (the activity's
 * own info has it), plan id or catalog, the default idempotency scope left out, and a dependency's data when it is
 * inline, else its ref. The worker also reads the fuller input of releases before 0.2.0.
 */
export const StepExecutionInputSchema = sharedSchema('domain/step-execution#StepExecutionInputSchema', () =>
  z.object({
    /** Default: the activity's workflow id. */
    workflow_id: z.string().min(1).optional(),
    plan_id: z.string().min(1).optional(),
    plan_version: z.number().int().min(1),
    step_index: z.number().int().nonnegative(),
    step_id: z.string().min(1),
    tool: z.string().min(1),
    tool_catalog: z.string().min(1).optional(),
    /** Params as planned, templates unresolved. */
    params: z.record(z.string(), z.unknown()),
    /** Results of the steps this one depends on, by step index: the data when small, else (or also) the ref to load. */
    inputs: z.record(
      z.string(),
      z
        .object({ ref: z.string().min(1).optional(), data: z.unknown().optional() })
        .refine((r) => r.ref !== undefined || r.data !== undefined, {
          message: 'a dependency needs its data or its ref',
          path: ['ref'],
        }),
    ),
    /** Default: defaultIdempotencyScope, stable across attempts; the worker adds a digest of the resolved params. */
    idempotency_scope: z.string().min(1).optional(),
    workspace_root: z.string().optional(),
  }),
);
export type StepExecutionInput = z.input<typeof StepExecutionInputSchema>;
