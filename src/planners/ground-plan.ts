/**
 * An LLM plan mended to its goal where the mending has one reading, before validation grounds it
 * (../domain/grounding): an id the model guessed for a param ("FAC-01", "Hannover") becomes a lookup — a first step
 * calling the tool whose records those ids are, with what the goal says that the tool can filter by (the place, the
 * type), and a `.*` template —, a constraint of the goal no step applies goes to the first step that can take it
 * ("last week" to its date params), and an optional filter whose value the goal never says is dropped. The plan's
 * assumptions say each mend. A small model, sent back a list of such issues, tends to give the whole plan up (IMPOSSIBLE); the
 * ranking planner binds the same way from the start.
 */
import {
  guessedIds,
  isIdParam,
  idProviders,
  saidByGoal,
  unboundConstraints,
  type GoalConstraint,
  type Grounding,
} from '../domain/grounding';
import type { JsonSchema } from '../domain/json-schema';
import { PlanSchema, type Plan, type Step } from '../domain/plan';
import { planComplexityOf, structureTasks } from '../domain/task-structure';
import { pathParamSchemas } from '../domain/paths';
import { containsTemplate } from '../domain/templates';
import { indexCatalog, type ToolSpec } from '../domain/tool-spec';
import { isRecord } from '../domain/walk';
import { DATE_FROM, DATE_TO, typedValue } from './goal-constraints';

const TEMPLATE_STEP = /\$\{step\[(\d+)\]/g;

/** `params` with every template's step index moved by `by` (steps were put before them). */
function shifted(value: unknown, by: number): unknown {
  if (typeof value === 'string') return value.replace(TEMPLATE_STEP, (_, n: string) => `\${step[${Number(n) + by}]`);
  if (Array.isArray(value)) return value.map((v) => shifted(v, by));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shifted(v, by)]));
  return value;
}

const schemaOf = (tool: ToolSpec, param: string): JsonSchema | undefined => {
  const schema = tool.parameters.properties?.[param];
  return isRecord(schema) ? (schema as JsonSchema) : undefined;
};

/** The params of `tool` that can take `constraint` (for a period, its date bounds) and are not set in `params`. */
function openParams(tool: ToolSpec, params: Record<string, unknown>, constraint: GoalConstraint): string[] {
  return Object.keys(tool.parameters.properties ?? {}).filter(
    (p) => constraint.params.includes(`${tool.name}.${p}`) && !(p in params),
  );
}

/** Sets `constraint` on `params` of `tool` if it can take it; the params it set. */
function apply(tool: ToolSpec, params: Record<string, unknown>, constraint: GoalConstraint): string[] {
  const open = openParams(tool, params, constraint);
  if (constraint.kind === 'period') {
    const from = open.find((p) => DATE_FROM.test(p));
    const to = open.find((p) => DATE_TO.test(p));
    if (!from || !to) return [];
    const [start, end = start] = constraint.values as [string, string?];
    params[from] = start;
    params[to] = end;
    return [from, to];
  }
  const param = open[0];
  if (param === undefined) return [];
  params[param] = typedValue(schemaOf(tool, param), constraint.values[0]!);
  return [param];
}

export function groundedPlan(plan: Plan, grounding: Grounding, catalog: readonly ToolSpec[]): Plan {
  if (plan.tasks.length !== 1 || plan.status === 'IMPOSSIBLE') return plan;
  const tools = indexCatalog(catalog);
  const task = plan.tasks[0]!;
  const notes: string[] = [];
  const lookups: { tool: ToolSpec; params: Record<string, unknown> }[] = [];
  /** Per original step: the id params that read a lookup, by lookup index. */
  const reads = new Map<number, Record<string, number>>();

  task.steps.forEach((step, i) => {
    const tool = step.tool ? tools.get(step.tool) : undefined;
    if (step.action !== 'tool_call' || !tool) return;
    for (const { param } of guessedIds(step, tool, grounding)) {
      const provider = idProviders(param, catalog).find((p) => p.name !== tool.name);
      if (!provider) continue;
      let at = lookups.findIndex((l) => l.tool === provider);
      if (at < 0) {
        const params: Record<string, unknown> = {};
        const applied = grounding.constraints.filter(
          (k) => k.kind !== 'period' && apply(provider, params, k).length > 0,
        );
        if (applied.length === 0) continue; // nothing of the goal to look the ids up by
        at = lookups.push({ tool: provider, params }) - 1;
      }
      reads.set(i, { ...reads.get(i), [param]: at });
      notes.push(
        `${param} of step ${step.id} was ${JSON.stringify(step.params[param])}, a guess: the ids come from a ${provider.name} lookup instead`,
      );
    }
  });

  const by = lookups.length;
  const steps: Step[] = [
    ...lookups.map(({ tool, params }): Step => ({
      id: '',
      title: `Look up ${tool.name}`,
      description: tool.description,
      action: 'tool_call',
      tool: tool.name,
      params,
      depends_on: [],
      parallel: true,
      expected_output: `Rows from ${tool.name}`,
      verification: [],
    })),
    ...task.steps.map((step, i): Step => {
      const own = reads.get(i) ?? {};
      const params = {
        ...(shifted(step.params, by) as Record<string, unknown>),
        ...Object.fromEntries(Object.entries(own).map(([p, at]) => [p, `\${step[${at}].data.*.id}`])),
      };
      const depends_on = [...new Set([...step.depends_on.map((d) => d + by), ...Object.values(own)])].sort(
        (a, b) => a - b,
      );
      return { ...step, params, depends_on };
    }),
  ].map((step, i) => (by > 0 ? { ...step, id: `${task.id}.${i + 1}` } : step));

  // An optional filter whose value the goal never says narrows the answer to something not asked ("type": "sorting"
  // for "all facilities in Hannover", "contaminant": "none", "limit": 20): dropped. Kept: the goal's own values and
  // constraints, values read from data (templates), flags, dates, ids (checked above) and paths (where, not what).
  for (const step of steps) {
    const tool = step.tool ? tools.get(step.tool) : undefined;
    // Only a read's params are filters; what a tool with an effect is given is what it writes.
    if (step.action !== 'tool_call' || !tool || !tool.idempotent) continue;
    const paths = new Set(pathParamSchemas(tool.parameters, tool.path_params).map((p) => p.param));
    for (const [param, value] of Object.entries(step.params)) {
      const schema = schemaOf(tool, param);
      const filter =
        typeof value === 'number'
          ? schema?.type === 'number' || schema?.type === 'integer'
          : typeof value === 'string' &&
            schema?.type === 'string' &&
            schema.format === undefined &&
            !containsTemplate(value);
      if (!filter || tool.required.includes(param) || paths.has(param) || isIdParam(param, schema)) continue;
      if (saidByGoal(String(value), grounding)) continue;
      delete step.params[param];
      notes.push(`${param}=${JSON.stringify(value)} of step ${step.id} was dropped: the goal does not ask for it`);
    }
  }

  for (const k of unboundConstraints(steps, grounding.constraints)) {
    for (const step of steps) {
      const tool = step.tool ? tools.get(step.tool) : undefined;
      const set = step.action === 'tool_call' && tool ? apply(tool, step.params, k) : [];
      if (set.length === 0) continue;
      notes.push(
        `"${k.words}" applies to step ${step.id} (${set.map((p) => `${p}=${JSON.stringify(step.params[p])}`).join(', ')})`,
      );
      break;
    }
  }
  if (notes.length === 0) return plan;
  const tasks = structureTasks(
    steps.map(({ id: _id, ...step }) => ({
      label: task.title,
      step: { ...step, description: '', expected_output: '', verification: [] },
    })),
    tools,
  );
  return PlanSchema.parse({
    ...plan,
    // Criteria, resources and verification follow the steps' new params and lookups.
    tasks,
    assumptions: [...plan.assumptions, ...notes],
    complexity: planComplexityOf(tasks),
    estimate: { ...plan.estimate, calls: plan.estimate.calls + by },
  });
}
