/**
 * An LLM plan mended to its goal where the mending has one reading, before validation grounds it
 * (../domain/grounding): an id the model guessed for a param ("FAC-01", "Hannover") becomes a lookup — a first step
 * calling the tool whose records those ids are, with what the goal says that the tool can filter by (the place, the
 * type), and a `.*` template —, a constraint of the goal no step applies goes to the first step that can take it
 * ("last week" to its date params), and an optional filter whose value the goal never says is dropped. The plan's
 * assumptions say each mend. A small model, sent back a list of such issues, tends to give the whole plan up (IMPOSSIBLE); the
 * ranking planner binds the same way from the start. A plan of several tasks keeps them: each step stays in its task,
 * and a lookup joins the task of the first step that reads its ids.
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
import { PlanSchema, type Plan } from '../domain/plan';
import { planComplexityOf, structureTasks, taskStepIds, type LabelledStep } from '../domain/task-structure';
import { pathParamSchemas } from '../domain/paths';
import { containsTemplate, renumberedTemplates } from '../domain/templates';
import { indexCatalog, type ToolSpec } from '../domain/tool-spec';
import { isRecord } from '../domain/walk';
import { DATE_FROM, DATE_TO, typedValue } from './goal-constraints';

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

/** What structureTasks derives again from a mended step's params (criteria, resources, verification follow them). */
const underived = () => ({ description: '', expected_output: '', verification: [] });

export function groundedPlan(plan: Plan, grounding: Grounding, catalog: readonly ToolSpec[]): Plan {
  if (plan.tasks.length === 0 || plan.status === 'IMPOSSIBLE') return plan;
  const tools = indexCatalog(catalog);
  const given = plan.tasks.flatMap((task) => task.steps.map((step) => ({ step, label: task.title })));
  const notes: string[] = [];
  const lookups: { tool: ToolSpec; params: Record<string, unknown>; firstReader: number }[] = [];
  /** Per original step: the id params that read a lookup, by lookup index. */
  const reads = new Map<number, Record<string, number>>();

  given.forEach(({ step }, i) => {
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
        at = lookups.push({ tool: provider, params, firstReader: i }) - 1;
      }
      reads.set(i, { ...reads.get(i), [param]: at });
      notes.push(
        `${param} of step ${step.id} was ${JSON.stringify(step.params[param])}, a guess: the ids come from a ${provider.name} lookup instead`,
      );
    }
  });

  // Each lookup goes just before the first step that reads it: in its task, which keeps its place among the tasks.
  const order: ({ lookup: number } | { given: number })[] = given.flatMap((_, i) => [
    ...lookups.flatMap((l, at) => (l.firstReader === i ? [{ lookup: at }] : [])),
    { given: i },
  ]);
  const indexOfGiven: number[] = [];
  const indexOfLookup: number[] = [];
  order.forEach((o, k) => {
    if ('lookup' in o) indexOfLookup[o.lookup] = k;
    else indexOfGiven[o.given] = k;
  });
  const labelled = order.map((o): LabelledStep => {
    if ('lookup' in o) {
      const { tool, params, firstReader } = lookups[o.lookup]!;
      const step = { title: `Look up ${tool.name}`, action: 'tool_call' as const, tool: tool.name, params };
      return { label: given[firstReader]!.label, step: { ...step, depends_on: [], parallel: true, ...underived() } };
    }
    const {
      step: { id: _id, ...step },
      label,
    } = given[o.given]!;
    const own = Object.entries(reads.get(o.given) ?? {}).map(([p, at]) => [p, indexOfLookup[at]!] as const);
    const params = {
      ...renumberedTemplates(step.params, (n) => indexOfGiven[n] ?? n),
      ...Object.fromEntries(own.map(([p, at]) => [p, `\${step[${at}].data.*.id}`])),
    };
    const depends_on = [...new Set([...step.depends_on.map((d) => indexOfGiven[d] ?? d), ...own.map(([, at]) => at)])];
    return { label, step: { ...step, params, depends_on: depends_on.sort((a, b) => a - b), ...underived() } };
  });
  const ids = taskStepIds(labelled); // as the mended plan numbers them, for the notes
  const steps = labelled.map((l) => l.step);

  // An optional filter whose value the goal never says narrows the answer to something not asked ("type": "sorting"
  // for "all facilities in Hannover", "contaminant": "none", "limit": 20): dropped. Kept: the goal's own values and
  // constraints, values read from data (templates), flags, dates, ids (checked above) and paths (where, not what).
  steps.forEach((step, i) => {
    const tool = step.tool ? tools.get(step.tool) : undefined;
    // Only a read's params are filters; what a tool with an effect is given is what it writes.
    if (step.action !== 'tool_call' || !tool || !tool.idempotent) return;
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
      notes.push(`${param}=${JSON.stringify(value)} of step ${ids[i]} was dropped: the goal does not ask for it`);
    }
  });

  for (const k of unboundConstraints(steps, grounding.constraints)) {
    for (const [i, step] of steps.entries()) {
      const tool = step.tool ? tools.get(step.tool) : undefined;
      const set = step.action === 'tool_call' && tool ? apply(tool, step.params, k) : [];
      if (set.length === 0) continue;
      notes.push(
        `"${k.words}" applies to step ${ids[i]} (${set.map((p) => `${p}=${JSON.stringify(step.params[p])}`).join(', ')})`,
      );
      break;
    }
  }
  if (notes.length === 0) return plan;
  const tasks = structureTasks(labelled, tools);
  return PlanSchema.parse({
    ...plan,
    tasks,
    assumptions: [...plan.assumptions, ...notes],
    complexity: planComplexityOf(tasks),
    estimate: { ...plan.estimate, calls: plan.estimate.calls + lookups.length },
  });
}
