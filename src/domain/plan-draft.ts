/**
 * The lean plan an LLM writes: only what it decides (status, missing capabilities, and steps with a short title,
 * tool, params, dependencies and, optionally, a `task` label naming the part of the goal the step serves). The system
 * turns it into a full Plan (./task-structure): steps of one label form a task (no labels: one task), task
 * dependencies, step ids "T.N", descriptions, expected outputs, acceptance criteria, complexity and the estimate. Fewer output tokens is the main lever on latency for local models
 * and on cost for hosted ones.
 *
 * `planDraftJsonSchema` is the same format as JSON Schema for structured outputs: the tool name is constrained to
 * the catalog's names and each step's params to that tool's schema (one variant per tool), where a param that takes
 * a list may also be one whole `${step[N].data...}` template.
 */
import { z } from 'zod';
import { estimateStepsUsage } from './budget';
import { canonicalJson } from './canonical-json';
import type { JsonSchema } from './json-schema';
import { PLAN_STATUSES, PlanSchema, type Plan, type PlanMetadata } from './plan';
import { STEP_KINDS, stepKind, type StepKindName } from '../step-kinds';
import { planComplexityOf, structureTasks } from './task-structure';
import { referencedSteps, renumberedTemplates } from './templates';
import { indexCatalog, type ToolSpec } from './tool-spec';
import { isRecord } from './walk';

/**
 * Steps that call no tool: the registered kinds offered to the LLM planner (those with a `draft`, src/step-kinds),
 * e.g. `llm` (a language model answers `params.instruction` over the data of the steps it depends on), `human` (a
 * person answers `params.question`), `noop`. A draft step names one of these as `action` instead of a `tool`.
 */
export const DRAFT_STEP_KINDS = STEP_KINDS.filter((k) => k.draft).map((k) => k.name) as unknown as readonly [
  StepKindName,
  ...StepKindName[],
];

const TASK_LABEL_MAX = 80;

export const DraftStepSchema = z
  .object({
    title: z.string().min(1).max(200),
    tool: z.string().min(1).optional(),
    action: z.enum(DRAFT_STEP_KINDS).optional(),
    params: z.record(z.string(), z.unknown()).default({}),
    depends_on: z.array(z.number().int().nonnegative()).default([]),
    /** Which part of the goal the step serves, in a few words; steps with the same label form one task. */
    task: z.string().trim().min(1).max(TASK_LABEL_MAX).optional(),
  })
  .refine((s) => (s.tool === undefined) !== (s.action === undefined), {
    message: `a step names either a "tool" or an "action" (${DRAFT_STEP_KINDS.join(', ')})`,
  });

export const PlanDraftSchema = z.object({
  status: z.enum(PLAN_STATUSES),
  missing_capabilities: z.array(z.string()).default([]),
  steps: z.array(DraftStepSchema).default([]),
});
export type PlanDraft = z.output<typeof PlanDraftSchema>;

/** How long a step is expected to take, for the estimate's duration (a chain of N steps: N of these). */
export const STEP_DURATION_MS = 500;
const TITLE_MAX = 80;
const MISSING_MAX = 5;

/**
 * The status the draft's steps and missing capabilities say: steps and something missing is PARTIAL, steps and
 * nothing missing FEASIBLE, no steps IMPOSSIBLE. Small models often write a status that contradicts them ("IMPOSSIBLE"
 * beside the steps that do the goal), and asking again costs a call; whether the plan really does the whole goal is
 * for the coverage check. A draft with neither steps nor missing capabilities says too little to mend: the schema
 * refuses it.
 */
function statusOf(draft: PlanDraft): PlanDraft['status'] {
  const steps = draft.steps.length > 0;
  if (!steps && draft.missing_capabilities.length === 0) return draft.status;
  return !steps ? 'IMPOSSIBLE' : draft.missing_capabilities.length > 0 ? 'PARTIAL' : 'FEASIBLE';
}

/**
 * The draft without steps that repeat an earlier one (same tool or kind, same params once references to repeats
 * point at the step they repeat): a small model sometimes writes one query twenty times. Later steps' dependencies
 * and templates follow; the assumptions say which steps were merged.
 */
function withoutRepeatedSteps(draft: PlanDraft): { draft: PlanDraft; assumptions: string[] } {
  const keptAs: number[] = []; // draft index → index among kept steps
  const kept: PlanDraft['steps'] = [];
  const keys = new Map<string, number>();
  const merged: string[] = [];
  draft.steps.forEach((step, i) => {
    const indexOf = (n: number) => keptAs[n] ?? n - (i - kept.length); // a forward reference keeps its distance
    const params = renumberedTemplates(step.params, indexOf);
    const depends_on = [...new Set(step.depends_on.map(indexOf))];
    const key = JSON.stringify([step.tool ?? step.action, canonicalJson(params)]);
    const earlier = keys.get(key);
    if (earlier !== undefined && depends_on.every((d) => d <= earlier)) {
      keptAs[i] = earlier;
      merged.push(`1.${i + 1}`);
      return;
    }
    keptAs[i] = kept.length;
    keys.set(key, kept.length);
    kept.push({ ...step, params, depends_on });
  });
  if (merged.length === 0) return { draft, assumptions: [] };
  return {
    draft: { ...draft, steps: kept },
    assumptions: [`steps ${merged.join(', ')} repeated an earlier step and were merged into it`],
  };
}

/** `${step[N].data.*.field}` (every item's field) or `${step[N].data.field}` (a field of data itself). */
const ITEM_FIELD_TEMPLATE = /^\$\{step\[(\d+)\]\.data\.(\*\.)?([A-Za-z_]\w*)\}$/;

const takesList = (schema: unknown) =>
  isRecord(schema) && (schema.type === 'array' || (Array.isArray(schema.type) && schema.type.includes('array')));

/**
 * A read of a list's items in the wrong form, mended: `${step[0].data.id}` when step 0's data is a list of items with
 * an `id` means every item's id, `${step[0].data.*.id}` (a param that takes one value then runs the step once per
 * id: ./fan-out). The plan's assumptions say what was read. Small models write this by habit and, corrected, tend to
 * give the whole plan up.
 */
function mendedItemReads(
  params: Record<string, unknown>,
  tool: ToolSpec | undefined,
  stepId: string,
  resultOf: (step: number) => JsonSchema | undefined,
): { params: Record<string, unknown>; assumptions: string[] } {
  const assumptions: string[] = [];
  const out = { ...params };
  for (const [name, value] of Object.entries(params)) {
    const param = tool?.parameters.properties?.[name];
    const match = typeof value === 'string' ? ITEM_FIELD_TEMPLATE.exec(value) : null;
    if (!match || !isRecord(param) || param.type === undefined) continue;
    const [, step, star, field] = match;
    const result = resultOf(Number(step));
    const itemsHaveField =
      result?.type === 'array' &&
      isRecord(result.items) &&
      isRecord(result.items.properties) &&
      field! in result.items.properties;
    if (star || !itemsHaveField) continue;
    out[name] = `\${step[${step}].data.*.${field}}`;
    const once = takesList(param) ? '' : `, one call per item (${name} takes one value)`;
    assumptions.push(
      `step ${stepId} reads ${String(out[name])}, every item's ${field} of step 1.${Number(step) + 1}'s result${once}`,
    );
  }
  return { params: out, assumptions };
}

/** Stamps the system owns: id, version, goal and metadata. */
export interface DraftStamp {
  id: string;
  version: number;
  goal: string;
  metadata: PlanMetadata;
}

/**
 * The full plan for a draft. Throws the zod error of PlanSchema when the draft breaks a plan rule (a PARTIAL plan
 * naming nothing missing); the caller reports it like any schema error.
 */
export function planFromDraft(
  written: PlanDraft,
  stamp: DraftStamp,
  catalog: readonly ToolSpec[],
): z.input<typeof PlanSchema> {
  const { draft, assumptions: merges } = withoutRepeatedSteps(written);
  const tools = indexCatalog(catalog);
  const toolOf = (i: number) => {
    const name = draft.steps[i]?.tool;
    return name === undefined ? undefined : tools.get(name);
  };
  const reads = draft.steps.map((s, i) =>
    mendedItemReads(s.params, toolOf(i), `1.${i + 1}`, (step) => (step < i ? toolOf(step)?.result : undefined)),
  );
  const labelled = draft.steps.map((s, i) => ({
    label: s.task ?? stamp.goal.slice(0, 200),
    step: {
      title: s.title,
      description: '',
      action: s.action ?? ('tool_call' as const),
      tool: s.tool ?? null,
      params: reads[i]!.params,
      // A template names the step it reads; an earlier one it forgot in depends_on is added (validation reports the rest).
      depends_on: [...new Set([...s.depends_on, ...referencedSteps(s.params).filter((ref) => ref < i)])],
      // Read-only (idempotent) tools may run side by side; anything else runs alone.
      parallel: s.tool === undefined ? false : (tools.get(s.tool)?.idempotent ?? false),
      expected_output: '',
      verification: [],
    },
  }));
  const tasks = structureTasks(labelled, tools);
  const steps = tasks.flatMap((t) => t.steps);
  const depthOf = (i: number, seen: number[] = []): number => {
    if (seen.includes(i)) return 1; // a cycle: validation reports it
    const deps = steps[i]?.depends_on.filter((d) => d < steps.length) ?? [];
    return 1 + Math.max(0, ...deps.map((d) => depthOf(d, [...seen, i])));
  };
  const usage = estimateStepsUsage(steps, tools);
  return {
    ...stamp,
    status: statusOf(draft),
    missing_capabilities: draft.missing_capabilities,
    tasks,
    assumptions: [...merges, ...reads.flatMap((r) => r.assumptions)],
    complexity: planComplexityOf(tasks),
    estimate: { ...usage, duration_ms: Math.max(0, ...steps.map((_, i) => depthOf(i))) * STEP_DURATION_MS },
  };
}

/** A plan as the draft the model would write (for refinements: the previous version in the model's own format). */
export function draftOf(plan: Plan): PlanDraft {
  return {
    status: plan.status,
    missing_capabilities: plan.missing_capabilities,
    steps: plan.tasks.flatMap((t) =>
      t.steps.map((s) => ({
        title: s.title,
        ...(s.action === 'tool_call' ? { tool: s.tool ?? '' } : { action: s.action }),
        params: s.params,
        depends_on: s.depends_on,
        ...(plan.tasks.length > 1 ? { task: t.title } : {}),
      })),
    ),
  };
}

/** A whole `${step[N].data...}` template, as the grammar of a structured output may write it. */
const TEMPLATE_STRING: JsonSchema = { type: 'string', pattern: '^\\$\\{step\\[[0-9]+\\]\\.data[^}]*\\}$' };

/** zod's long regex `pattern` beside a `format` says the same as the format; grammars choke on some of them. `all`: every pattern. */
export function withoutFormatPatterns<T>(schema: T, which: 'beside-format' | 'all' = 'beside-format'): T {
  if (Array.isArray(schema)) return schema.map((item: unknown) => withoutFormatPatterns(item, which)) as T;
  if (!isRecord(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'pattern' && (which === 'all' || typeof schema.format === 'string')) continue;
    if (key === '$schema') continue;
    out[key] = withoutFormatPatterns(value, which);
  }
  return out as T;
}

/**
 * A tool's params schema where a param that takes a list may also be one whole template: that is where one step's
 * rows flow into the next (`shipment_ids`). A number, a flag, an enum or a date is the model's own value; offering a
 * template there invited `"limit": "${step[0].data.length}"`. A plain string takes any text, a template included.
 */
function paramsSchema(tool: ToolSpec): JsonSchema {
  // No pattern at all: an id param's pattern ("FAC-01") would let the model write a guessed id but no template.
  const schema = withoutFormatPatterns(tool.parameters, 'all');
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([name, prop]) => [
      name,
      isRecord(prop) && prop.type === 'array' ? { anyOf: [prop, TEMPLATE_STRING] } : prop,
    ]),
  );
  return { ...schema, type: 'object', properties };
}

/** One variant of a step: a tool call (`tool` is the tool's name) or a step of another kind (`action` is the kind). */
function stepVariant(key: 'tool' | 'action', name: string, params: JsonSchema): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['title', key, 'params', 'depends_on'],
    properties: {
      title: { type: 'string', minLength: 1, maxLength: TITLE_MAX },
      [key]: { type: 'string', const: name },
      params,
      depends_on: { type: 'array', items: { type: 'integer', minimum: 0 } },
      task: { type: 'string', minLength: 1, maxLength: TASK_LABEL_MAX },
    },
  };
}

/**
 * The draft format as JSON Schema for `tools` (the catalog, narrowed to allowed_tools by the caller) and the step
 * kinds without a tool the run can execute (`kinds`; none by default).
 */
export function planDraftJsonSchema(
  tools: readonly ToolSpec[],
  maxSteps: number,
  kinds: readonly (typeof DRAFT_STEP_KINDS)[number][] = [],
): JsonSchema {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const variants = [
    ...sorted.map((t) => stepVariant('tool', t.name, paramsSchema(t))),
    ...kinds.map((k) => stepVariant('action', k, stepKind(k)!.draft!.params)),
  ];
  const steps: JsonSchema =
    variants.length === 0
      ? { type: 'array', maxItems: 0 }
      : { type: 'array', maxItems: maxSteps, items: { anyOf: variants } };
  return {
    type: 'object',
    additionalProperties: false,
    required: ['status', 'missing_capabilities', 'steps'],
    properties: {
      status: { type: 'string', enum: [...PLAN_STATUSES] },
      missing_capabilities: {
        type: 'array',
        maxItems: MISSING_MAX,
        items: { type: 'string', minLength: 1, maxLength: TITLE_MAX },
      },
      steps,
    },
  };
}
