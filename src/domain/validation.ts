/**
 * validatePlan: every check a plan must pass before it may run, collected (not first-failure) so one re-prompt can
 * fix them all. Templates must reference a DIRECT dependency: a transitive one has also finished, but naming the
 * data source in depends_on keeps each step's inputs explicit and re-planning safe.
 */
import { compoundActionReason } from './atomicity';
import { estimateStepsUsage, shortfalls, type ToolBudget, type Usage } from './budget';
import { findCycle, formatCycle } from './dag';
import { formatZodIssues, type ValidationIssue } from './errors';
import { unboundConstraintIssues, unverifiedIdIssues, type Grounding } from './grounding';
import { checkJsonSchema } from './json-schema';
import { isInsideWorkspace, pathParamValues } from './paths';
import { ACTION_TYPES, PLAN_LIMITS, PlanSchema, flattenSteps, type ActionType, type Plan, type Step } from './plan';
import type { Constraints } from './request';
import { findSecret } from './secrets';
import { taskIssues } from './task-validation';
import { templatePathProblem } from './template-paths';
import { containsTemplate, scanTemplates } from './templates';
import { indexCatalog, type ToolSpec } from './tool-spec';
import { stepKind } from '../step-kinds';
import { forEachString, formatPath, jsonByteLength, lastKey } from './walk';
import { closestNames, identifierStems } from './text';

export interface ValidationContext {
  catalog: readonly ToolSpec[];
  constraints?: Partial<Constraints>;
  /** When given with policy "block" or "fail", the plan's estimate must fit what is left ("warn" budgets never block). */
  budget?: ToolBudget;
  /** The step kinds the run can execute (see runnableStepKinds); default all. */
  step_kinds?: readonly ActionType[];
  /** When given, the goal's constraints must reach a step and ids must come from the goal or data (./grounding). */
  grounding?: Grounding;
}

/** The step kinds a run can execute: a kind whose steps call the LLM needs the run to work with one (planner `llm`). */
export function runnableStepKinds(planner: 'llm' | 'ranking'): readonly ActionType[] {
  return planner === 'llm' ? ACTION_TYPES : ACTION_TYPES.filter((k) => !stepKind(k)?.callsLlm);
}

/** "shipment" or "contaminants" names the tool shipments or contaminants-detected: every word of it is one of the tool's name. */
function namesTool(capability: string, tool: string): boolean {
  const words = identifierStems(capability);
  const toolWords = new Set(identifierStems(tool));
  return (
    capability.trim().toLowerCase() === tool.toLowerCase() || (words.length > 0 && words.every((w) => toolWords.has(w)))
  );
}

/** All issues of `plan` (any JSON value) against `context`; an empty list means the plan may run. Never throws. */
export function validatePlan(plan: unknown, context: ValidationContext): ValidationIssue[] {
  const parsed = PlanSchema.safeParse(plan);
  if (!parsed.success) {
    return formatZodIssues(parsed.error).map((line) => ({
      code: 'SCHEMA',
      message: line,
      hint: 'Make the plan match the plan schema; the path says where.',
    }));
  }
  return planIssues(parsed.data, context);
}

/**
 * validatePlan's checks of a plan already in the plan schema's shape (a planner's typed output), without parsing it
 * again: a plan parse is most of what validating a ranking plan allocates.
 */
export function planIssues(plan: Plan, context: ValidationContext): ValidationIssue[] {
  const steps = flattenSteps(plan);
  const tools = indexCatalog(context.catalog);
  const constraints = context.constraints ?? {};
  const issues: ValidationIssue[] = [];

  if (constraints.max_steps !== undefined && steps.length > constraints.max_steps) {
    issues.push({
      code: 'TOO_MANY_STEPS',
      message: `plan has ${steps.length} steps, the limit is ${constraints.max_steps}`,
      hint: 'Merge or drop steps, or split the goal into phases.',
    });
  }
  const firstIndexOfId = new Map<string, number>();
  steps.forEach((step, i) => {
    const first = firstIndexOfId.get(step.id);
    if (first === undefined) firstIndexOfId.set(step.id, i);
    else {
      issues.push({
        code: 'DUPLICATE_STEP_ID',
        message: `step ${i} reuses id "${step.id}" of step ${first}`,
        step_index: i,
        hint: 'Give every step a unique id such as "2.3" (task 2, step 3).',
      });
    }
  });
  steps.forEach((step, i) => issues.push(...checkStep(step, i, steps, tools, constraints, context.grounding)));
  if (context.grounding) issues.push(...unboundConstraintIssues(plan, steps, context.grounding.constraints));
  const kinds = context.step_kinds ?? ACTION_TYPES;
  steps.forEach((step, i) => {
    if (kinds.includes(step.action)) return;
    issues.push({
      code: 'STEP_KIND_NOT_RUNNABLE',
      message: `step ${i} ("${step.id}"): this run cannot execute ${step.action} steps`,
      step_index: i,
      hint: `Use only step kinds this run can execute: ${kinds.join(', ')}${stepKind(step.action)?.callsLlm ? ` (${step.action} steps need a run that plans with an LLM)` : ''}.`,
    });
  });
  const paramsBytes = steps.reduce((sum, step) => sum + jsonByteLength(step.params), 0);
  if (paramsBytes > PLAN_LIMITS.plan_params_bytes) {
    issues.push({
      code: 'PARAMS_TOO_LARGE',
      message: `the params of all steps are ${paramsBytes} bytes as JSON, over the limit of ${PLAN_LIMITS.plan_params_bytes} bytes per plan`,
      hint: 'Keep params small: pass data between steps with ${step[N]…} templates instead of copying it into params.',
    });
  }

  // (A FEASIBLE or PARTIAL plan without steps fails the plan schema already.)
  if (plan.status === 'IMPOSSIBLE' && steps.length > 0) {
    issues.push({
      code: 'STATUS_CONTRADICTS_STEPS',
      message: `the plan is IMPOSSIBLE with ${steps.length} step(s)`,
      hint: 'An IMPOSSIBLE plan has no steps. If the steps do part of the goal, the status is PARTIAL (name what is missing); else remove them.',
    });
  }
  const usable = constraints.allowed_tools ?? [...tools.keys()];
  for (const missing of plan.missing_capabilities) {
    const tool = usable.find((name) => namesTool(missing, name));
    if (!tool) continue;
    issues.push({
      code: 'MISSING_BUT_AVAILABLE',
      message: `missing_capabilities names "${missing}", but "${tool}" is a tool of the catalog`,
      hint: `Call "${tool}" in a step; name as missing only what no tool does.`,
    });
  }

  issues.push(...taskIssues(plan));
  const cycle = findCycle(steps);
  if (cycle) {
    issues.push({
      code: 'CYCLE',
      message: `dependency cycle ${formatCycle(cycle)}`,
      step_index: cycle[0],
      hint: 'Remove one depends_on edge of the cycle; a step can only depend on steps that finish before it.',
    });
  }
  if (context.budget && context.budget.policy !== 'warn')
    issues.push(...checkBudget(plan, steps, tools, context.budget));
  return issues;
}

/** Values a model writes when it has none: "your_facility_id", "<carrier>", "{{id}}", "TBD". */
const PLACEHOLDER =
  /^(<[^<>]+>|\{\{[^{}]*\}\}|(your|my|some|example|sample)[_-]\w+|placeholder|todo|tbd|x{3,6}|\.\.\.)$/i;

function checkStep(
  step: Step,
  i: number,
  steps: readonly Step[],
  tools: ReadonlyMap<string, ToolSpec>,
  constraints: Partial<Constraints>,
  grounding: Grounding | undefined,
): ValidationIssue[] {
  const stepCount = steps.length;
  const issues: ValidationIssue[] = [];
  const name = `step ${i} ("${step.id}")`;
  const add = (code: ValidationIssue['code'], message: string, hint: string) =>
    issues.push({ code, message: `${name}: ${message}`, step_index: i, hint });

  const compound = compoundActionReason(step.title);
  if (compound) {
    add(
      'COMPOUND_STEP',
      `"${step.title.slice(0, 120)}" does more than one thing (${compound})`,
      'Split it into one step per action, each titled with its one action, the later one depending on the earlier (depends_on).',
    );
  }

  if (step.action === 'tool_call' && step.tool !== null) {
    const tool = tools.get(step.tool);
    if (!tool) {
      const names = constraints.allowed_tools ?? [...tools.keys()];
      const closest = closestNames(step.tool, names);
      const guess = closest.length > 0 ? `Did you mean ${closest.map((n) => `"${n}"`).join(' or ')}? ` : '';
      add(
        'UNKNOWN_TOOL',
        `unknown tool "${step.tool}"`,
        `${guess}Use one of the catalog tools: ${names.slice(0, 30).join(', ') || '(none)'}.`,
      );
    } else {
      if (constraints.allowed_tools && !constraints.allowed_tools.includes(tool.name)) {
        add(
          'TOOL_NOT_ALLOWED',
          `tool "${tool.name}" is not allowed for this request`,
          `Use only: ${constraints.allowed_tools.join(', ')}.`,
        );
      }
      for (const v of checkJsonSchema(step.params, tool.parameters)) {
        const missing = v.keyword === 'required';
        add(
          missing ? 'MISSING_PARAM' : 'INVALID_PARAM',
          `tool "${tool.name}" ${missing ? v.message : `param ${v.path || '(params)'}: ${v.message}`}`,
          missing
            ? `Add the param; "${tool.name}" requires: ${tool.required.join(', ')}.`
            : `Match the parameter schema of "${tool.name}".`,
        );
      }
      if (grounding) issues.push(...unverifiedIdIssues(step, i, tool, [...tools.values()], grounding));
    }
  }
  const kind = stepKind(step.action);
  const kindParams = kind?.params.safeParse(step.params);
  if (kindParams && !kindParams.success) {
    add(
      'INVALID_PARAM',
      `${step.action} step params: ${formatZodIssues(kindParams.error).join('; ')}`,
      `Match the params of a ${step.action} step.`,
    );
  }

  const paramsBytes = jsonByteLength(step.params);
  if (paramsBytes > PLAN_LIMITS.step_params_bytes) {
    add(
      'PARAMS_TOO_LARGE',
      `params are ${paramsBytes} bytes as JSON, over the limit of ${PLAN_LIMITS.step_params_bytes} bytes per step`,
      'Keep params small: pass data between steps with ${step[N]…} templates instead of copying it into params.',
    );
  }

  for (const d of step.depends_on) {
    if (d >= stepCount)
      add(
        'DEPENDENCY_OUT_OF_RANGE',
        `depends_on ${d}, but the plan has ${stepCount} steps (0-based)`,
        'depends_on holds 0-based indices of steps in the flattened plan.',
      );
  }

  const scan = scanTemplates(step.params);
  for (const m of scan.malformed) {
    add(
      'MALFORMED_TEMPLATE',
      `param ${m.location} has a malformed template "${m.text}"`,
      'Write templates as ${step[N].data[0].id} or ${step[N].data.*.id}.',
    );
  }
  const reported = new Set<number>();
  for (const ref of scan.refs) {
    if (reported.has(ref.step)) continue;
    reported.add(ref.step);
    if (ref.step >= stepCount) {
      add(
        'TEMPLATE_OUT_OF_RANGE',
        `param ${ref.location} references step ${ref.step}, but the plan has ${stepCount} steps`,
        'Template indices are 0-based indices into the flattened plan.',
      );
    } else if (!step.depends_on.includes(ref.step)) {
      add(
        'TEMPLATE_NOT_DEPENDENCY',
        `param ${ref.location} uses ${ref.raw} but step ${ref.step} is not in depends_on`,
        `Add ${ref.step} to depends_on.`,
      );
    }
  }
  for (const ref of scan.refs) {
    const source = steps[ref.step];
    const result = source?.tool ? tools.get(source.tool)?.result : undefined;
    const [first, ...rest] = ref.path;
    if (!result || first?.kind !== 'key' || first.key !== 'data') continue;
    const problem = templatePathProblem(rest, result);
    if (problem)
      add(
        'TEMPLATE_PATH_INVALID',
        `param ${ref.location} uses ${ref.raw}, but in step ${ref.step}'s result (${source!.tool}) ${problem}`,
        'Read only fields the tool\'s result has (see "Result data" under the tool).',
      );
  }

  forEachString(step.params, (text, path) => {
    if (text.length <= 40 && PLACEHOLDER.test(text.trim())) {
      add(
        'PLACEHOLDER_VALUE',
        `param ${formatPath(path)} is a placeholder, "${text.slice(0, 80)}"`,
        'Pass a value the goal gives, a ${step[N]…} template, or leave the param out.',
      );
    }
    const secret = findSecret(lastKey(path), text);
    if (secret) {
      add(
        'SECRET_IN_PARAMS',
        `param ${formatPath(path)} holds ${secret}`,
        'Never put credentials in a plan; the tool worker reads them from its environment.',
      );
    }
  });
  const root = constraints.workspace_root;
  if (root !== undefined) {
    // Path params come from the tool's schema ("x-path" marks; the name heuristic for MCP schemas, unknown tools and
    // steps that call no tool).
    // This check is lexical; paths built from templates are only known at run time, and executeStep checks every
    // path again by real path (symlinks followed) before the tool runs.
    const tool = step.action === 'tool_call' && step.tool !== null ? tools.get(step.tool) : undefined;
    for (const { at, value } of pathParamValues(step.params, tool?.parameters ?? {}, tool?.path_params ?? 'by-name')) {
      if (!containsTemplate(value) && !isInsideWorkspace(value, root)) {
        add(
          'PATH_OUTSIDE_WORKSPACE',
          `param ${formatPath(at)} points outside the workspace ${root}`,
          `Use paths inside ${root} (relative paths are resolved against it).`,
        );
      }
    }
  }
  return issues;
}

function checkBudget(
  plan: Plan,
  steps: readonly Step[],
  tools: ReadonlyMap<string, ToolSpec>,
  budget: ToolBudget,
): ValidationIssue[] {
  // Trust neither side alone: the declared estimate may be optimistic, the catalog figures may be incomplete.
  const computed = estimateStepsUsage(steps, tools);
  const estimate: Usage = {
    cost_usd: Math.max(computed.cost_usd, plan.estimate.cost_usd),
    tokens: Math.max(computed.tokens, plan.estimate.tokens),
    calls: Math.max(computed.calls, plan.estimate.calls),
  };
  return shortfalls(budget, estimate).map((s) => ({
    code: 'BUDGET_INSUFFICIENT',
    message: `plan needs ${s.dimension} ${s.required}, the budget has ${s.available} left`,
    hint: 'Use fewer or cheaper steps, or ask for a larger budget.',
  }));
}
