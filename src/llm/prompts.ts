/**
 * Every prompt the LLM side sends. Each conversation is [system, user]: the system message is the STABLE PREFIX,
 * ONE text for every role (the tool catalog sorted by name, then each role's rules and JSON format with an example,
 * in a fixed order) that depends only on the catalog, so prompt caches serve it across requests and across roles;
 * the user message after it names the role and holds everything about one request (goal, now, dates, requirements,
 * constraints, refinement).
 */
import type { TemporalReference } from '../domain/dates';
import { flattenSteps, type Plan } from '../domain/plan';
import { draftOf, type PlanDraft } from '../domain/plan-draft';
import type { PlanningRequest } from '../domain/request';
import type { Requirements } from '../domain/requirements';
import type { z } from 'zod';
import type { RequirementsReplySchema } from './reply-schemas';
import type { ToolSpec } from '../domain/tool-spec';
import { isRecord } from '../domain/walk';
import { STEP_KINDS } from '../step-kinds';
import type { Refinement } from '../domain/plan';

/** The plan format as the model writes it: only what it decides (the system fills ids, defaults and estimates). Tools are made up. */
export const PLAN_EXAMPLE = {
  status: 'FEASIBLE',
  missing_capabilities: [],
  steps: [
    {
      title: 'Open orders of last week',
      tool: 'orders',
      params: { status: 'open', date_from: '2026-11-16', date_to: '2026-11-22' },
      depends_on: [],
    },
    {
      title: 'Items of those orders',
      tool: 'order-items',
      params: { order_ids: '${step[0].data.*.id}' },
      depends_on: [0],
    },
  ],
} satisfies PlanDraft;

/** A PARTIAL plan for "Find open orders and email them to sales" (the made-up catalog sends no email). */
const PARTIAL_EXAMPLE = {
  status: 'PARTIAL',
  missing_capabilities: ['sending email'],
  steps: [{ title: 'Open orders', tool: 'orders', params: { status: 'open' }, depends_on: [] }],
} satisfies PlanDraft;

/** The requirements format as the model writes it, for an unclear goal (so the example shows a clarification). */
export const REQUIREMENTS_EXAMPLE = {
  is_clear: false,
  clarification: {
    question: 'Which orders do you mean by "the problem orders"?',
    options: ['Orders that are overdue', 'Orders with a failed payment', 'Orders with a customer complaint'],
    default_option: 0,
  },
  steps: ['Fetch orders filtered by the chosen problem'],
  required_capabilities: ['orders'],
  intent: { type: 'query', confidence: 0.6 },
} satisfies z.input<typeof RequirementsReplySchema>;

/** Without regex `pattern`s: a date's format, an id's examples say the same in far fewer tokens. */
function schemaText(schema: unknown): string {
  return JSON.stringify(schema, (_key, value: unknown) => {
    if (!isRecord(value) || !('pattern' in value)) return value;
    const { pattern: _pattern, ...rest } = value;
    return rest;
  });
}

/** The catalog as the model sees it: every tool with its JSON Schema, sorted by name so the text is stable. */
function catalogSection(catalog: readonly ToolSpec[]): string {
  const tools = [...catalog].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (tools.length === 0) return '## Tools\n\n(none: no tool is available)';
  const entries = tools.map((t) =>
    [
      `### ${t.name}`,
      t.description,
      `Required params: ${t.required.length > 0 ? t.required.join(', ') : '(none)'}`,
      `Params (JSON Schema): ${schemaText(t.parameters)}`,
      ...(t.result ? [`Result data, what \${step[N].data...} reads (JSON Schema): ${schemaText(t.result)}`] : []),
      ...(t.tags.length > 0 ? [`Tags: ${t.tags.join(', ')}`] : []),
    ].join('\n'),
  );
  return `## Tools\n\n${entries.join('\n\n')}`;
}

function datesSection(references: readonly TemporalReference[]): string {
  if (references.length === 0) return 'Resolved dates: none (the goal names no relative period).';
  const lines = references.map((r) => `- "${r.phrase}": ${r.start} to ${r.end}`);
  return `Resolved dates (both ends inclusive; use exactly these):\n${lines.join('\n')}`;
}

function conversationSection(request: PlanningRequest): string[] {
  if (request.context.length === 0) return [];
  return [`Conversation so far:\n${request.context.map((m) => `${m.role}: ${m.content}`).join('\n')}`];
}

/** The catalog, then which role to follow: the roles' sections come after it. */
function toolsPreamble(catalog: readonly ToolSpec[]): string {
  return `An orchestrator for AI agents carries goals through analysis, planning and review, then runs the plan's steps with the tools below.\n\n${catalogSection(catalog)}\n\n# Your task\n\nYou take one of three roles, each described below with its rules and its reply format: the analyst, the planner and the pre-mortem critic. The user's message names the role you take for it, then gives its data: follow the rules and the format of that role only.\n\n`;
}

/** Rule 9's sentences: each step kind offered to the LLM planner, as its draft says (src/step-kinds). */
const STEP_KIND_RULES = STEP_KINDS.flatMap((k) => (k.draft ? [k.draft.rule] : [])).join('; ');

// ---- planner ----

const PLANNER_ROLE = `# Role: planner

As the planner of an orchestrator for AI agents, you turn a goal into an executable plan: a JSON object whose steps call the tools listed above under "Tools". You never run anything yourself.

## Planner rules

1. Reply with one JSON object in the plan format below and nothing else, written on one line as in the example (no line breaks, no indentation).
2. Every step calls one tool listed above under "Tools" ("tool" is its exact name; never invent one) with "params" that match the tool's JSON Schema: all required params, no unknown params, the right types.
3. Steps are numbered from 0 in the order you write them. "depends_on" lists the numbers of earlier steps that must finish before a step starts.
4. To use the result of an earlier step N, put a template in a param value AND list N in depends_on:
   - \${step[N].data.*.field} is that field of every item of an array result (an array)
   - \${step[N].data[0].field} is a field of the first item
   - \${step[N].data.field} is a field of an object result
   A param that takes one value (an id such as facility_id) given .* runs the step once per item: use it to cover every item.
   An id param gets an id from the data, never a name or a place: look the id up in an earlier step and pass it by template.
5. Dates are ISO dates (YYYY-MM-DD). For relative periods ("last week") use exactly the resolved dates given with the goal, both ends inclusive. Every filter the goal states (a period, place, status, type, name or amount) goes into a param of a step that filters on it.
6. "status": FEASIBLE when the tools achieve the whole goal ("missing_capabilities" is empty); PARTIAL when they achieve only part of it: plan that part and name each missing capability in "missing_capabilities"; IMPOSSIBLE when no tool helps: "steps" is empty and "missing_capabilities" names what would be needed.
7. Never put credentials (API keys, tokens, passwords) in params.
8. Keep the plan as small as the goal allows. A "title" is a few words.
9. A step that needs no tool names an "action" instead of a "tool": ${STEP_KIND_RULES}.

## Plan format

Example (its tools are made up; use only the tools above):
${JSON.stringify(PLAN_EXAMPLE)}

A PARTIAL plan (the goal also asked to email the orders, and no tool sends email):
${JSON.stringify(PARTIAL_EXAMPLE)}`;

export interface PlannerPromptInput {
  request: PlanningRequest;
  requirements: Requirements;
  temporal_references: readonly TemporalReference[];
  refinement?: Refinement;
  workspace?: { text: string };
  /**
   * A first plan's starting point: the ranking planner's plan; `verdict`: the model says whether to keep it before
   * writing a plan, else it corrects it; `left_out`: the goal's values the draft holds nowhere.
   */
  draft?: { plan: Plan; verdict: boolean; left_out: readonly string[] };
}

/** "step 0 is "1.1", step 1 is "1.2"": how the ids the critics name map to the steps of a draft. */
function stepIdsLine(plan: Plan): string {
  return (
    flattenSteps(plan)
      .map((s, i) => `step ${i} is "${s.id}"`)
      .join(', ') || 'none'
  );
}

/** What the critic reads of a plan: what the planner decided, each step with its id (fewer prompt tokens than the whole plan). */
function reviewedPlan(plan: Plan): object {
  const { status, missing_capabilities, assumptions } = plan;
  const steps = flattenSteps(plan).map(({ id, title, action, tool, params, depends_on }) => ({
    id,
    title,
    ...(action === 'tool_call' ? {} : { action }),
    tool,
    params,
    depends_on,
  }));
  return { status, missing_capabilities, ...(assumptions.length > 0 ? { assumptions } : {}), steps };
}

function constraintsSection(request: PlanningRequest): string {
  const { constraints, budget } = request;
  const lines = [`- at most ${constraints.max_steps} steps`];
  if (constraints.allowed_tools)
    lines.push(`- use only these tools: ${constraints.allowed_tools.join(', ') || '(none)'}`);
  if (constraints.workspace_root) lines.push(`- file paths must stay inside ${constraints.workspace_root}`);
  lines.push(
    `- budget for running the plan: at most ${budget.cost_usd} USD, ${budget.tokens} tokens, ${budget.calls} calls`,
  );
  return `Constraints:\n${lines.join('\n')}`;
}

export function plannerUserPrompt(input: PlannerPromptInput): string {
  const { request, requirements, temporal_references, refinement, workspace, draft } = input;
  const { temporal_references: _dates, ...analysis } = requirements;
  const sections = [
    'Role: planner (follow the planner rules and the plan format above).',
    `Goal: ${request.goal}`,
    `Now: ${request.now}`,
    datesSection(temporal_references),
    // A draft already carries the analysis into tools and params: its JSON would cost the model's prompt a few seconds.
    ...(draft && !refinement ? [] : [`Requirements (the analysis of the goal):\n${JSON.stringify(analysis)}`]),
    constraintsSection(request),
    ...conversationSection(request),
    ...(workspace ? [`Workspace (its structure and the files most relevant to the goal):\n${workspace.text}`] : []),
  ];
  if (refinement) {
    sections.push(
      `This is a refinement of plan version ${refinement.previous.version}:\n${JSON.stringify(draftOf(refinement.previous))}\n(Step ids, which the feedback may name: ${stepIdsLine(refinement.previous)}.)`,
      `Feedback to address:\n${refinement.feedback.map((f) => `- ${f}`).join('\n')}`,
      'Write a new complete plan that addresses every point of the feedback and keeps what was right. Reply with the plan as one JSON object.',
    );
  } else if (draft) {
    sections.push(
      `A draft plan, made by matching the goal's words to the tools and their params (it may miss a step, pick a wrong tool or a wrong value):\n${JSON.stringify(draftOf(draft.plan))}`,
      ...(draft.left_out.length > 0
        ? [`The draft holds none of these values of the goal: ${draft.left_out.map((w) => `"${w}"`).join(', ')}.`]
        : []),
      draft.verdict
        ? 'Check the draft against the goal: its tools, its params (every filter the goal states, with the right values) and its status. If it answers the goal, reply {"verdict":"keep","plan":null}. Otherwise reply {"verdict":"revise","plan":<the corrected plan>}, the plan in the format above. Reply with one JSON object.'
        : 'Correct the draft: every filter the goal states goes into a param with the right value (or, where no tool does it, into missing_capabilities with the status PARTIAL), and keep what is right. Reply with the whole plan as one JSON object, in the format above.',
    );
  } else {
    sections.push('Reply with the plan as one JSON object.');
  }
  return sections.join('\n\n');
}

// ---- requirements analysis ----

const ANALYST_ROLE = `# Role: analyst

As the analyst, you analyse goals for an orchestrator of AI agents before they are planned. You do not plan or run anything: you say what a goal requires, or ask what it means.

## Analyst rules

1. Reply with one JSON object in the requirements format below and nothing else, written on one line as in the example (no line breaks, no indentation).
2. "is_clear" is false when the goal is vague or ambiguous: when reasonable readings lead to different work (which data, which records, which period, which action). Then "clarification" holds one "question", 2 to 5 concrete "options" (each a complete reading the user can pick as is) and "default_option", the 0-based index of the most likely option. When the goal is clear, "is_clear" is true and "clarification" is null.
3. "steps" are the abstract requirement steps in order, in words: name the service or data and the operation, never concrete values and never templates (no \${...}). Each step names an operation and the data of THIS goal, with its filters in words (the period, not its dates); one step per distinct operation, each written once.
4. "required_capabilities" names what the goal needs, with the tool names above where one fits; name a missing capability plainly.
5. "intent.type" is query (fetch data), question (answer something), command (change something), clarification (the user answers an earlier question) or confirmation (the user confirms); "intent.confidence" is from 0 to 1.
6. Do not write dates: the system resolves the goal's periods itself.

## Requirements format

Example (an unclear goal; its tools are made up):
${JSON.stringify(REQUIREMENTS_EXAMPLE)}`;

export function analyzerUserPrompt(
  request: PlanningRequest,
  temporal_references: readonly TemporalReference[],
): string {
  return [
    'Role: analyst (follow the analyst rules and the requirements format above).',
    `Goal: ${request.goal}`,
    `Now: ${request.now}`,
    datesSection(temporal_references),
    ...conversationSection(request),
    'Reply with the requirements as one JSON object.',
  ].join('\n\n');
}

// ---- pre-mortem critic ----

/** The critique the critic's prompt shows (a made-up plan); a reply that copies it is dropped (../planners/critique/grounding). */
export const PREMORTEM_EXAMPLE = {
  severity: 'error',
  step_id: '1.1',
  message: 'status "closed" returns closed orders, but the goal asks for open ones.',
  suggestion: 'Set status to "open".',
} as const;

const CRITIC_ROLE = `# Role: pre-mortem critic

As the pre-mortem critic for plans of an orchestrator of AI agents, imagine the plan you are given was run and FAILED. Work out the most likely reasons it failed and report each one as a critique.

## Critic rules

1. Reply with one JSON object {"critiques": [...]} and nothing else, written on one line (no line breaks, no indentation).
2. Look for: params that do not match the tool's schema or the goal, wrong or missing date ranges, a step using data an earlier step does not return, a template whose step is missing from depends_on, steps that break on an empty result, parts of the goal no step covers, irreversible actions (delete, send, pay) without a human check, assumptions that may be false.
3. Each critique: "severity" is "error" when the failure is likely and defeats the goal, "warning" when it is plausible or partial, "info" for a minor improvement; "step_id" is the id of the step concerned (such as "1.2"), left out when the critique is about the whole plan; "message" says what fails and why; "suggestion" is the concrete change that prevents it.
4. Report at most 5 critiques, the most likely failure first. Report none ({"critiques": []}) when no failure is plausible; do not invent problems. Most sound plans get none.
5. Use "error" only for a failure you can point to in THIS plan: give its step id and quote the exact value or template of that step that fails. An error that quotes no value of its step counts as a warning. Never repeat the example below: it is about a different plan.

## Critique format

Example (for a made-up plan for "open orders of last week" whose step 1.1 passes "status": "closed"):
${JSON.stringify({ critiques: [PREMORTEM_EXAMPLE] })}

For a sound plan: {"critiques": []}`;

export function premortemUserPrompt(request: PlanningRequest, plan: Plan): string {
  return [
    'Role: pre-mortem critic (follow the critic rules and the critique format above).',
    `Goal: ${request.goal}`,
    `Now: ${request.now}`,
    `Plan version ${plan.version} (steps are numbered 0.. in this order; "id" is what step_id names):\n${JSON.stringify(reviewedPlan(plan))}`,
    'Imagine this plan failed. Reply with the critiques as one JSON object.',
  ].join('\n\n');
}

// ---- the system prompt of every role ----

/**
 * The one system prompt of every role for a catalog: the catalog, then the planner's, the critic's and the analyst's
 * rules and formats. Byte-identical whatever the role, so a prompt cache that holds only the last prompt (llama.cpp's
 * slot) serves all of it from one call to the next and only the user message is read anew; the warm-up
 * (./warm-up.ts) sends it once at a worker's start. The analyst's section comes last, nearest the request: placed
 * before the planner's, Qwen2.5-Coder-1.5B copied the plan example's made-up tools and dates into its analysis.
 */
export function systemPrompt(catalog: readonly ToolSpec[]): string {
  return `${toolsPreamble(catalog)}${PLANNER_ROLE}\n\n${CRITIC_ROLE}\n\n${ANALYST_ROLE}`;
}

// ---- correction turn (appended after the model's unusable reply) ----

export function correctionPrompt(errors: readonly string[]): string {
  return `Your reply could not be used:\n${errors.join('\n')}\n\nReturn the corrected JSON object only, complete, with no other text.`;
}

/** After a reply identical to one already rejected: say so, and ask for a different one. */
export function repeatedReplyPrompt(errors: readonly string[]): string {
  return `You sent the same reply again, and it is still wrong in the same way:\n${errors.join('\n')}\n\nDo not repeat it. Change exactly what each line above names (use only the names it suggests), then return the whole JSON object, with no other text.`;
}
