/**
 * What a step kind is: everything the planner needs to know about the steps of a plan that call no tool. A kind is
 * one folder under src/step-kinds/ (its `kind.ts`, and its `activities.ts` when it does I/O) and one line in the
 * registry (./index.ts; and ./activities.ts for its activities). This file and every kind's `kind.ts` are workflow
 * code: deterministic, importing only zod and types (lint enforces it); the domain builds the plan schema from the
 * registry, so they import no values from the domain either.
 */
import type { z } from 'zod';
import type { PlanningOptions } from '../api/input';
import type { JsonSchema } from '../domain/json-schema';
import type { StepResult } from '../domain/step-execution';

/** The fields of a plan's step a kind reads (the plan's Step has them; its schema is built from this registry). */
export interface KindStep {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly params: Record<string, unknown>;
  readonly expected_output: string;
}

/** What a kind's `run` may do with its step, inside the workflow (src/workflows/steps.ts provides it). */
export interface StepKindContext {
  readonly workflowId: string;
  readonly goal: string;
  /** The run's option, or its default. */
  option<K extends keyof PlanningOptions>(key: K): NonNullable<PlanningOptions[K]>;
  /** The results of the steps this one depends on, by step index (refs; small data inline). */
  inputs(): Record<string, { ref: string; data: unknown }>;
  /** Activities on the planner's queue, with the planning activities' timeouts and retries (`summary` for the UI). */
  activities<A extends object>(summary: string): A;
  /** Ends the step COMPLETED with `result`, charged to the budget; `what` is said in the audit trail. */
  complete(result: StepResult, what: string): void;
  /** Ends the step COMPLETED with no result. */
  completeEmpty(what: string): void;
  /** `text` stored in the content store as the step's result (null stores nothing). */
  storedText(text: string | null): Promise<StepResult>;
  /**
   * The step WAITING until a person answers `question` (completeStep): the answer, or null when the wait outlasted
   * `human_step_timeout_ms` (the step has then failed with PLAN-007).
   */
  askPerson(question: string): Promise<{ answer: string | null } | null>;
}

export interface StepKind<Name extends string = string> {
  /** The step's `action`. */
  readonly name: Name;
  /** What its `params` must be; validation reports a mismatch as INVALID_PARAM (src/domain/validation.ts). */
  readonly params: z.ZodType<Record<string, unknown>>;
  /** Its steps call the LLM: only a run that plans with an LLM can execute them (STEP_KIND_NOT_RUNNABLE otherwise). */
  readonly callsLlm: boolean;
  /**
   * Offered to the LLM planner: the JSON Schema of its params in the draft's structured output
   * (src/domain/plan-draft.ts) and its sentence in the planner's rules (src/llm/prompts.ts). Absent: only a plan
   * written by hand (or by a planner of its own) uses it.
   */
  readonly draft?: { readonly params: JsonSchema; readonly rule: string };
  /**
   * Runs one step, in the workflow: deterministic, I/O only through `ctx.activities`. Ends the step through `ctx`
   * (complete, or askPerson's timeout) or fails it by throwing (the run re-plans).
   */
  run(step: KindStep, ctx: StepKindContext): Promise<void> | void;
}

/** A kind, its name kept as a literal type (the plan's `action` enum is built from the registry's names). */
export function defineStepKind<Name extends string>(kind: StepKind<Name>): StepKind<Name> {
  return kind;
}
