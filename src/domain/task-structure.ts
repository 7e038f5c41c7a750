/**
 * Goal → Tasks → Steps, derived by the system: a planner says only which part of the goal each step serves (a
 * label); this module groups the steps into tasks, orders the tasks by the data they pass (a task whose step reads
 * another task's step depends on that task; tasks that read each other are one task), renumbers the steps ("2.1":
 * task 2, step 1; templates and depends_on follow) and fills what a model should not have to write: each task's
 * complexity, resources and acceptance criteria, each step's description, expected output and verification.
 */
import { FIBONACCI, TASK_COMPLEXITY, type AcceptanceCriterion, type Complexity, type Step, type Task } from './plan';
import type { JsonSchema } from './json-schema';
import { pathParamValues } from './paths';
import { containsTemplate, renumberedTemplates } from './templates';
import type { ToolSpec } from './tool-spec';
import { isRecord } from './walk';

/** A step before tasks exist: depends_on and templates index the planner's own step order. */
export type UngroupedStep = Omit<Step, 'id'>;

/** Which part of the goal the step serves: its task's title (steps with the same label share a task). */
export interface LabelledStep {
  step: UngroupedStep;
  label: string;
}

/** The smallest task complexity (Fibonacci, at most 13) that covers `steps` steps. */
export function taskComplexityOf(steps: number): Task['complexity'] {
  return TASK_COMPLEXITY.find((f) => f >= steps) ?? 13;
}

/** The plan's complexity: the smallest Fibonacci number covering the sum of its tasks' (at most 21). */
export function planComplexityOf(tasks: readonly Pick<Task, 'complexity'>[]): Complexity {
  const sum = tasks.reduce((n, t) => n + t.complexity, 0);
  return FIBONACCI.find((f) => f >= sum) ?? 21;
}

/** Groups of step indices whose labels are the same, in order of first appearance. */
function labelGroups(steps: readonly LabelledStep[]): number[][] {
  const byLabel = new Map<string, number[]>();
  steps.forEach((s, i) => {
    const key = s.label.trim().toLowerCase();
    byLabel.set(key, [...(byLabel.get(key) ?? []), i]);
  });
  return [...byLabel.values()];
}

/** Group g depends on group h when a step of g depends on a step of h. */
function groupEdges(steps: readonly LabelledStep[], groupOf: readonly number[]): Set<number>[] {
  const edges = Array.from({ length: Math.max(0, ...groupOf) + 1 }, () => new Set<number>());
  steps.forEach((s, i) => {
    for (const d of s.step.depends_on) {
      const h = groupOf[d];
      if (h !== undefined && h !== groupOf[i]) edges[groupOf[i]!]!.add(h);
    }
  });
  return edges;
}

/** The groups reachable from `from` following edges, `from` included. */
function reachable(edges: readonly Set<number>[], from: number): Set<number> {
  const seen = new Set([from]);
  const stack = [from];
  while (stack.length > 0) for (const h of edges[stack.pop()!] ?? []) if (!seen.has(h)) (stack.push(h), seen.add(h));
  return seen;
}

/**
 * Groups of steps in task order: groups that depend on each other (a cycle of data between parts) merge into one;
 * then each group comes after the groups it depends on, otherwise in order of first appearance.
 */
function orderedGroups(steps: readonly LabelledStep[]): { members: number[]; after: number[] }[] {
  let groups = labelGroups(steps);
  for (;;) {
    const groupOf: number[] = [];
    groups.forEach((g, k) => g.forEach((i) => (groupOf[i] = k)));
    const edges = groupEdges(steps, groupOf);
    const cyclic = groups.findIndex((_, k) => [...edges[k]!].some((h) => reachable(edges, h).has(k)));
    if (cyclic < 0) {
      const order: number[] = [];
      while (order.length < groups.length) {
        order.push(groups.findIndex((_, k) => !order.includes(k) && [...edges[k]!].every((h) => order.includes(h))));
      }
      return order.map((k) => ({ members: groups[k]!, after: [...edges[k]!].map((h) => order.indexOf(h)).sort() }));
    }
    const merged = groups.flatMap((_, k) =>
      k !== cyclic && reachable(edges, k).has(cyclic) && reachable(edges, cyclic).has(k) ? [k] : [],
    );
    const into = [cyclic, ...merged];
    const union = into.flatMap((k) => groups[k]!).sort((a, b) => a - b);
    groups = groups.flatMap((g, k) => (k === Math.min(...into) ? [union] : into.includes(k) ? [] : [g]));
  }
}

/** A task as grouping makes it: title, steps renumbered, dependencies; the derived fields come from `describeTask`. */
export interface GroupedTask {
  id: string;
  title: string;
  depends_on: string[];
  steps: Step[];
}

/** The id ("T.N") each of `steps` gets in its task, in the steps' own order. */
export function taskStepIds(steps: readonly LabelledStep[]): string[] {
  const ids: string[] = [];
  orderedGroups(steps).forEach((g, t) => g.members.forEach((i, k) => (ids[i] = `${t + 1}.${k + 1}`)));
  return ids;
}

/**
 * The tasks for labelled steps (in the planner's step order, which need not put a task's steps together): ids "1",
 * "2"…, step ids "T.N", every depends_on and `${step[N]` renumbered to the new flattened order.
 */
export function groupIntoTasks(steps: readonly LabelledStep[]): GroupedTask[] {
  const groups = orderedGroups(steps);
  const newIndex: number[] = [];
  let next = 0;
  for (const g of groups) for (const i of g.members) newIndex[i] = next++;
  const indexOf = (old: number) => newIndex[old] ?? old;
  return groups.map((g, t) => ({
    id: String(t + 1),
    title: steps[g.members[0]!]!.label.trim(),
    depends_on: g.after.map((k) => String(k + 1)),
    steps: g.members.map((i, k) => {
      const s = steps[i]!.step;
      return {
        ...s,
        id: `${t + 1}.${k + 1}`,
        params: renumberedTemplates(s.params, indexOf),
        depends_on: [...new Set(s.depends_on.map(indexOf))].sort((a, b) => a - b),
      };
    }),
  }));
}

/** `${step[N].data.*.field}` as a whole value. */
const EVERY_ITEM_FIELD = /^\$\{step\[(\d+)\]\.data\.\*\.([A-Za-z_]\w*)\}$/;

function rowProperties(result: JsonSchema | undefined): Record<string, JsonSchema> | undefined {
  if (!result || result.type !== 'array' || !isRecord(result.items)) return undefined;
  const props = (result.items as JsonSchema).properties;
  return isRecord(props) ? (props as Record<string, JsonSchema>) : undefined;
}

/** A date param's bound: its schema says format "date", its name says which end. */
const FROM_NAME = /(^|_)(from|start|since|after|begin)(_|$)/;
const TO_NAME = /(^|_)(to|end|until|before)(_|$)/;

/** The [from, to] a step's literal date params give, or undefined. */
function dateRange(step: UngroupedStep, tool: ToolSpec): { from: string; to: string } | undefined {
  const props = tool.parameters.properties ?? {};
  const isDate = (p: string) => isRecord(props[p]) && (props[p] as JsonSchema).format === 'date';
  const value = (re: RegExp) => {
    const p = Object.keys(step.params).find((k) => isDate(k) && re.test(k));
    const v = p === undefined ? undefined : step.params[p];
    return typeof v === 'string' && !containsTemplate(v) ? v : undefined;
  };
  const from = value(FROM_NAME);
  const to = value(TO_NAME);
  return from || to ? { from: from ?? '0000-01-01', to: to ?? '9999-12-31' } : undefined;
}

/** The row field of `rows` that a param filled from another step's field fills: `facility_id`, `shipment_ids` → `shipment_id`. */
function filteredField(param: string, rows: Record<string, JsonSchema>): string | undefined {
  return [param, param.replace(/s$/, '')].find((f) => f in rows);
}

/**
 * The acceptance criteria of a task's steps (`steps` with their final ids; `all` is the whole flattened plan, for
 * templates that read an earlier task's step). Tests: rows carry the period their step asked for, rows filtered by
 * another step's values carry those values, a path a writing step names exists, a step without rows completed.
 * Not a test (reported only): a task's final list is non-empty — an empty list may be the true answer.
 */
export function acceptanceCriteria(
  taskId: string,
  steps: readonly Step[],
  all: readonly Step[],
  tools: ReadonlyMap<string, ToolSpec>,
): AcceptanceCriterion[] {
  const out: Omit<AcceptanceCriterion, 'id'>[] = [];
  const final = steps.filter((s) => !steps.some((o) => o.depends_on.some((d) => all[d]?.id === s.id)));
  for (const step of steps) {
    const tool = step.tool === null ? undefined : tools.get(step.tool);
    const rows = rowProperties(tool?.result);
    if (!tool || !rows) {
      if (!tool || !tool.idempotent || final.includes(step)) {
        out.push({
          description: `step ${step.id} (${step.tool ?? step.action}) completes`,
          assertion: { kind: 'step_completed', step: step.id },
          test: true,
        });
      }
      if (tool && !tool.idempotent) {
        for (const { value } of pathParamValues(step.params, tool.parameters, tool.path_params)) {
          if (containsTemplate(value)) continue;
          out.push({
            description: `${value} exists after step ${step.id} (${tool.name})`,
            assertion: { kind: 'path_exists', step: step.id, path: value },
            test: true,
          });
        }
      }
      continue;
    }
    const range = dateRange(step, tool);
    const dateFields = Object.entries(rows).filter(([, p]) => isRecord(p) && p.format === 'date');
    if (range && dateFields.length === 1) {
      const field = dateFields[0]![0];
      out.push({
        description: `every row of step ${step.id} (${tool.name}) has ${field} from ${range.from} to ${range.to}`,
        assertion: { kind: 'values_in_range', step: step.id, field, ...range },
        test: true,
      });
    }
    for (const [param, value] of Object.entries(step.params)) {
      const m = typeof value === 'string' ? EVERY_ITEM_FIELD.exec(value) : null;
      const source = m ? all[Number(m[1])] : undefined;
      const field = m ? filteredField(param, rows) : undefined;
      if (!source || !field) continue;
      out.push({
        description: `every row's ${field} of step ${step.id} (${tool.name}) is among the ${m![2]} values step ${source.id} returned`,
        assertion: { kind: 'values_among', step: step.id, field, source_step: source.id, source_field: m![2]! },
        test: true,
      });
    }
    if (final.includes(step)) {
      out.push({
        description: `step ${step.id} (${tool.name}) returns at least one row`,
        assertion: { kind: 'rows_non_empty', step: step.id },
        test: false,
      });
    }
  }
  return out.map((c, k) => ({ id: `AC-${taskId}.${k + 1}`, ...c }));
}

/** What a task uses, from its steps and the tools' annotations. */
export function taskResources(steps: readonly Step[], tools: ReadonlyMap<string, ToolSpec>): Task['resources'] {
  const used = [...new Set(steps.flatMap((s) => (s.tool === null ? [] : [s.tool])))];
  const specs = used.flatMap((n) => (tools.get(n) ? [tools.get(n)!] : []));
  const paths = (write: boolean) =>
    steps.flatMap((s) => {
      const tool = s.tool === null ? undefined : tools.get(s.tool);
      if (!tool || tool.idempotent === write) return [];
      return pathParamValues(s.params, tool.parameters, tool.path_params).map((p) => p.value);
    });
  const commands = steps.flatMap((s) =>
    Object.entries(s.params).flatMap(([k, v]) => (/^(command|cmd)$/.test(k) && typeof v === 'string' ? [v] : [])),
  );
  return {
    tools: used,
    reads: specs.filter((t) => t.idempotent).map((t) => t.name),
    writes: specs.filter((t) => !t.idempotent).map((t) => t.name),
    side_effects: specs.filter((t) => !t.idempotent).map((t) => `${t.name}: ${t.description}`),
    files_read: [...new Set(paths(false))],
    files_written: [...new Set(paths(true).filter((p) => !p.endsWith('/')))],
    folders_created: [...new Set(paths(true).filter((p) => p.endsWith('/')))],
    commands: [...new Set(commands)],
  };
}

/** What a step's result is, in words, from the tool's result schema. */
function expectedOutput(step: Step, tool: ToolSpec | undefined): string {
  if (step.action === 'llm') return "the model's answer over the data of the steps it depends on";
  if (step.action === 'human') return "a person's answer";
  if (step.action === 'noop') return 'nothing';
  const rows = rowProperties(tool?.result);
  if (rows) return `a list of ${step.tool} rows (${Object.keys(rows).join(', ')})`;
  return `the result of ${step.tool}`;
}

/** A task with every derived field, and its steps' descriptions, expected outputs and verification filled. */
export function describeTask(task: GroupedTask, all: readonly Step[], tools: ReadonlyMap<string, ToolSpec>): Task {
  const criteria = acceptanceCriteria(task.id, task.steps, all, tools);
  const steps = task.steps.map((s) => {
    const tool = s.tool === null ? undefined : tools.get(s.tool);
    const own = criteria.filter((c) => c.assertion.step === s.id).map((c) => c.description);
    return {
      ...s,
      description:
        s.description ||
        tool?.description ||
        (typeof s.params.instruction === 'string' ? s.params.instruction : s.title),
      expected_output: s.expected_output || expectedOutput(s, tool),
      verification: s.verification.length > 0 ? s.verification : own.length > 0 ? own : [`step ${s.id} completes`],
    };
  });
  const after = task.depends_on.length ? ` after task ${task.depends_on.join(', ')}` : '';
  return {
    id: task.id,
    title: task.title,
    description: `${steps.map((s) => s.title).join('; ')}${after}.`,
    depends_on: task.depends_on,
    complexity: taskComplexityOf(steps.length),
    resources: taskResources(steps, tools),
    acceptance_criteria: criteria,
    steps,
  };
}

/** Labelled steps → the plan's tasks, described; the flattened steps are in the tasks' order. */
export function structureTasks(steps: readonly LabelledStep[], tools: ReadonlyMap<string, ToolSpec>): Task[] {
  const grouped = groupIntoTasks(steps);
  const all = grouped.flatMap((t) => t.steps);
  return grouped.map((t) => describeTask(t, all, tools));
}
