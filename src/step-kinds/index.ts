/**
 * The step kinds, besides `tool_call` (a catalog tool on its queue, src/activities/tools.ts): the one list the plan
 * schema, validation, the LLM planner's draft and prompt, and the workflow's step runner read. A new kind is a
 * folder beside these and a line here (docs/contributing.md, "Add a step kind"). Workflow code: the kinds' workflow
 * parts only; their activities are registered in ./activities.ts.
 */
import { humanStep } from './human/kind';
import { llmStep } from './llm/kind';
import { noopStep } from './noop/kind';
import type { StepKind } from './kind';

export const STEP_KINDS = [llmStep, humanStep, noopStep] as const;

export type StepKindName = (typeof STEP_KINDS)[number]['name'];

/** Every step's possible `action`: `tool_call`, then the registered kinds. */
export const ACTION_TYPES = ['tool_call', ...STEP_KINDS.map((k) => k.name)] as readonly [
  'tool_call',
  ...StepKindName[],
];

const BY_NAME: ReadonlyMap<string, StepKind> = new Map(STEP_KINDS.map((k) => [k.name, k]));

/** The registered kind `name`, or undefined (`tool_call`, or not a kind). */
export function stepKind(name: string): StepKind | undefined {
  return BY_NAME.get(name);
}

export type { StepKind, StepKindContext } from './kind';
