/**
 * Every prompt the LLM side sends. Each conversation is [system, user]: the system message is the STABLE PREFIX
 * (role, rules, JSON format with an example, the tool catalog sorted by name) and depends only on the catalog, so
 * providers' prompt caches serve it across requests; everything about one request (goal, now, dates,
 * requirements, constraints, refinement) goes in the user message after it.
 */
import type { TemporalReference } from '../domain/dates';
import type { Plan, PlanInput } from '../domain/plan';
import type { PlanningRequest } from '../domain/request';
import type { Requirements } from '../domain/requirements';
import type { ToolSpec } from '../domain/tool-spec';
import { isRecord } from '../domain/walk';
import type { Refinement } from '../planners/types';

/** The plan format as the model writes it (the system stamps id, version, goal and metadata). Tools are made up. */
export const PLAN_EXAMPLE = {
  status: 'FEASIBLE',
  missing_capabilities: [],
  assumptions: ['"last week" means Monday to Sunday of the previous week'],
  complexity: 2,
  estimate: { cost_usd: 0, tokens: 0, calls: 2, duration_ms: 2000 },
  tasks: [
    {
      id: '1',
      title: 'Collect last week’s open orders with their items',
      description: 'Find the orders, then fetch the items of every order found',
      steps: [
        {
          id: '1.1',
          title: 'Find open orders of last week',
          description: 'Filter orders by status and creation date',
          action: 'tool_call',
          tool: 'search_orders',
          params: { status: 'open', date_from: '2026-11-16', date_to: '2026-11-22' },
          depends_on: [],
          parallel: false,
          expected_output: 'A list of orders, each with an id',
          verification: ['every order has status open'],
        },
        {
          id: '1.2',
          title: 'Fetch the items of those orders',
          description: 'One call for all order ids found by step 0',
          action: 'tool_call',
          tool: 'order_items',
          params: { order_ids: '${step[0].data.*.id}' },
          depends_on: [0],
          parallel: false,
          expected_output: 'The items of each order',
          verification: ['items are returned for every order id'],
        },
      ],
    },
  ],
} satisfies Omit<PlanInput, 'id' | 'version' | 'goal' | 'metadata'>;

/** The requirements format as the model writes it, for an unclear goal (so the example shows a clarification). */
export const REQUIREMENTS_EXAMPLE = {
  is_clear: false,
  clarification: {
    question: 'Which orders do you mean by "the problem orders"?',
    options: ['Orders that are overdue', 'Orders with a failed payment', 'Orders with a customer complaint'],
    default_option: 0,
  },
  steps: ['Fetch orders from the order system filtered by the chosen problem and period', 'Summarise the orders found'],
  required_capabilities: ['search_orders'],
  complexity_indicators: {
    estimated_steps: 2,
    external_services: ['order system'],
    has_conditionals: false,
    has_iteration: false,
    has_temporal_filter: true,
  },
  intent: { type: 'query', confidence: 0.6 },
  entities: [{ type: 'record', value: 'orders' }],
  temporal_references: [{ phrase: 'last week', start: '2026-11-16', end: '2026-11-22' }],
} satisfies Requirements;

function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** zod writes a long regex `pattern` beside `format: "date"`; the format says the same in far fewer tokens. */
function schemaText(schema: unknown): string {
  return JSON.stringify(schema, (_key, value: unknown) => {
    if (!isRecord(value) || typeof value.format !== 'string' || !('pattern' in value)) return value;
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

// ---- planner ----

export function plannerSystemPrompt(catalog: readonly ToolSpec[]): string {
  return `You are the planner of an orchestrator for AI agents. You turn a goal into an executable plan: a JSON object whose steps call the tools listed under "Tools". You never run anything yourself.

## Rules

1. Reply with one JSON object in the format below and nothing else.
2. Use only the tools listed under "Tools". Give every step params that match its tool's JSON Schema: all required params, no unknown params, the right types.
3. Steps are addressed by their 0-based index in the plan with the steps of all tasks flattened in order: the first step of the first task is step 0, and numbering continues across tasks. "depends_on" lists the indices of the steps that must finish before a step starts. Dependencies must not form a cycle; depend only on earlier steps.
4. To use the result of an earlier step N, put a template in a param value AND list N in depends_on:
   - \${step[N].data.field} is a field of step N's result
   - \${step[N].data.*.field} is that field of every item of an array result (an array)
   - \${step[N].data[0].field} is a field of the first item
   A param that is exactly one template receives the raw value (array, number, object); a template inside longer text is inserted as text.
5. Dates are ISO dates (YYYY-MM-DD). For relative periods ("last week") use the resolved date ranges given with the goal, both ends inclusive; never compute your own.
6. "parallel": true marks a step that may run at the same time as other parallel steps; a step with false runs alone.
7. "status": FEASIBLE when the tools achieve the whole goal (then "missing_capabilities" is empty); PARTIAL when they achieve part of it: plan that part and list what is missing in "missing_capabilities"; IMPOSSIBLE when they cannot help: "tasks" may be empty and "missing_capabilities" says what would be needed.
8. "action" is "tool_call" (needs "tool"), "llm" (a language-model step, "tool": null), "human" (a person acts, "tool": null) or "noop".
9. Never put credentials (API keys, tokens, passwords) in params: tools read them from their own environment.
10. Keep the plan as small as the goal allows and within the step limit given. Step ids are "task.step" ("2.1") and unique.
11. "complexity" is one of 1, 2, 3, 5, 8, 13, 21. "estimate" is your estimate for running the plan: cost_usd, tokens, calls (tool calls plus llm steps) and duration_ms.
12. Do not write "id", "version", "goal" or "metadata": the system sets them.

## Plan format

Example (its tools are made up; use only the tools below):
${json(PLAN_EXAMPLE)}

${catalogSection(catalog)}`;
}

export interface PlannerPromptInput {
  request: PlanningRequest;
  requirements: Requirements;
  temporal_references: readonly TemporalReference[];
  refinement?: Refinement;
  workspace?: { text: string };
}

/** The fields of a plan the model writes, i.e. without what the system stamps. */
function planBody(plan: Plan): Omit<Plan, 'id' | 'version' | 'goal' | 'metadata'> {
  const { id: _id, version: _version, goal: _goal, metadata: _metadata, ...body } = plan;
  return body;
}

function constraintsSection(request: PlanningRequest): string {
  const { constraints, budget } = request;
  const lines = [`- at most ${constraints.max_steps} steps`];
  if (constraints.allowed_tools) lines.push(`- use only these tools: ${constraints.allowed_tools.join(', ') || '(none)'}`);
  if (constraints.workspace_root) lines.push(`- file paths must stay inside ${constraints.workspace_root}`);
  lines.push(`- budget for running the plan: at most ${budget.cost_usd} USD, ${budget.tokens} tokens, ${budget.calls} calls`);
  return `Constraints:\n${lines.join('\n')}`;
}

export function plannerUserPrompt(input: PlannerPromptInput): string {
  const { request, requirements, temporal_references, refinement, workspace } = input;
  const { temporal_references: _dates, ...analysis } = requirements;
  const sections = [
    `Goal: ${request.goal}`,
    `Now: ${request.now}`,
    datesSection(temporal_references),
    `Requirements (the analysis of the goal):\n${json(analysis)}`,
    constraintsSection(request),
    ...conversationSection(request),
    ...(workspace ? [`Workspace (its structure and the files most relevant to the goal):\n${workspace.text}`] : []),
  ];
  if (refinement) {
    sections.push(
      `This is a refinement of plan version ${refinement.previous.version}:\n${json(planBody(refinement.previous))}`,
      `Feedback to address:\n${refinement.feedback.map((f) => `- ${f}`).join('\n')}`,
      'Write a new complete plan that addresses every point of the feedback and keeps what was right. Reply with the plan as one JSON object.',
    );
  } else {
    sections.push('Reply with the plan as one JSON object.');
  }
  return sections.join('\n\n');
}

// ---- requirements analysis ----

export function analyzerSystemPrompt(catalog: readonly ToolSpec[]): string {
  return `You analyse goals for an orchestrator of AI agents before they are planned. You do not plan or run anything: you say what a goal requires, or ask what it means.

## Rules

1. Reply with one JSON object in the format below and nothing else.
2. "is_clear" is false when the goal is vague or ambiguous: when reasonable readings lead to different work (which data, which records, which period, which action). Then "clarification" holds one "question", 2 to 5 concrete "options" (each a complete reading the user can pick as is) and "default_option", the 0-based index of the most likely option. When the goal is clear, "is_clear" is true and "clarification" is null.
3. "steps" are the abstract requirement steps in order, in words: name the service or data and the operation, never concrete values and never templates (no \${...}). Write "Fetch shipments with contaminants in the requested period", not "Call shipments with date_from 2026-11-16".
4. "required_capabilities" names what the goal needs, with the tool names below where one fits; name a missing capability plainly.
5. "intent.type" is query (fetch data), question (answer something), command (change something), clarification (the user answers an earlier question) or confirmation (the user confirms); "intent.confidence" is from 0 to 1.
6. "entities" are the things the goal names, each with a "type" and a "value".
7. "temporal_references": copy the resolved date ranges given with the goal exactly. Add one only for a time phrase of the goal that is not resolved, as ISO dates with both ends inclusive.
8. "complexity_indicators": estimated_steps, external_services, has_conditionals, has_iteration, has_temporal_filter.

## Requirements format

Example (an unclear goal; its tools are made up):
${json(REQUIREMENTS_EXAMPLE)}

${catalogSection(catalog)}`;
}

export function analyzerUserPrompt(request: PlanningRequest, temporal_references: readonly TemporalReference[]): string {
  return [
    `Goal: ${request.goal}`,
    `Now: ${request.now}`,
    datesSection(temporal_references),
    ...conversationSection(request),
    'Reply with the requirements as one JSON object.',
  ].join('\n\n');
}

// ---- pre-mortem critic ----

export function premortemSystemPrompt(catalog: readonly ToolSpec[]): string {
  return `You are a pre-mortem critic for plans of an orchestrator of AI agents. Imagine the plan you are given was run and FAILED. Work out the most likely reasons it failed and report each one as a critique.

## Rules

1. Reply with one JSON object {"critiques": [...]} and nothing else.
2. Look for: params that do not match the tool's schema or the goal, wrong or missing date ranges, a step using data an earlier step does not return, a template whose step is missing from depends_on, steps that break on an empty result, parts of the goal no step covers, irreversible actions (delete, send, pay) without a human check, assumptions that may be false.
3. Each critique: "severity" is "error" when the failure is likely and defeats the goal, "warning" when it is plausible or partial, "info" for a minor improvement; "step_id" is the id of the step concerned (such as "1.2"), left out when the critique is about the whole plan; "message" says what fails and why; "suggestion" is the concrete change that prevents it.
4. Report at most 5 critiques, the most likely failure first. Report none ({"critiques": []}) when no failure is plausible; do not invent problems.

## Critique format

Example:
${json({ critiques: [{ severity: 'error', step_id: '1.2', message: 'Step 1.2 reads ${step[0].data.*.id} but step 1.1 returns orders under "items", so no ids reach it.', suggestion: 'Use ${step[0].data.items.*.id}.' }] })}

${catalogSection(catalog)}`;
}

export function premortemUserPrompt(request: PlanningRequest, plan: Plan): string {
  return [
    `Goal: ${request.goal}`,
    `Now: ${request.now}`,
    `Plan version ${plan.version} (steps are numbered 0.. in this order across tasks):\n${json(planBody(plan))}`,
    'Imagine this plan failed. Reply with the critiques as one JSON object.',
  ].join('\n\n');
}

// ---- correction turn (appended after the model's unusable reply) ----

export function correctionPrompt(errors: readonly string[]): string {
  return `Your reply could not be used:\n${errors.join('\n')}\n\nReturn the corrected JSON object only, complete, with no other text.`;
}
