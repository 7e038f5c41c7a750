/**
 * Stub planning activities for workflow tests: each stage's activity is a function the test scripts, so every branch
 * of the stage machine can be driven on a real (time-skipping) Temporal server without LLMs or tools.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { toApplicationFailure } from '../../src/api/failures';
import type { ToolBudget } from '../../src/domain/budget';
import type { PlanningRequest } from '../../src/domain/request';
import { contentAddress } from '../../src/store/content-store';
import type { Critique, GatekeeperDecision } from '../../src/domain/critique';
import { decide } from '../../src/domain/critique';
import { forecastPlan } from '../../src/domain/cost-forecast';
import type { PlannerError } from '../../src/domain/errors';
import type { LlmCallUsage } from '../../src/domain/llm-calls';
import type { Plan } from '../../src/domain/plan';
import type { ToolRoute } from '../../src/domain/routing';
import { idempotencyScopeOf, type StepExecutionInput, type StepResult } from '../../src/domain/step-execution';
import { createVerifierActivities } from '../../src/activities/verify';
import { analyze, rankingPlan } from './planning';

export const SCENARIO = 'Get contaminated shipments from last week and show me the contaminant details';

/** One LLM call's usage, for stubs that pretend to have called a model. */
export function llmCall(tokens = 100): LlmCallUsage {
  return { model: 'stub', prompt_tokens: tokens, completion_tokens: 0, cached_tokens: 0, cost_usd: 0 };
}

/** A planner error as an activity throws it: through the one failure bridge, LLM calls in its details. */
export function activityFailure(err: PlannerError, llmCalls: LlmCallUsage[] = []): ApplicationFailure {
  Object.assign(err.details, { llm_calls: llmCalls });
  return toApplicationFailure(err) as ApplicationFailure;
}

export interface StubScript {
  analyze?: (
    request: PlanningRequest,
    call: number,
  ) => { analyzer?: 'llm' | 'rules'; llm_calls?: LlmCallUsage[] } | void;
  plan?: (plan: Plan, call: number) => Plan;
  critiques?: (plan: Plan, call: number) => Critique[];
  /** Given the input with its idempotency scope as the worker reads it (a lean input leaves the default out). */
  step?: (input: StepExecutionInput & { idempotency_scope: string }) => Partial<StepResult> | void;
}

/** The planner's activities as stubs: the seed scenario's requirements and ranking plan unless the script says otherwise. */
export function stubActivities(script: StubScript, toolQueue: string) {
  const calls = { analyze: 0, plan: 0, critique: 0, step: 0 };
  /** What generatePlan was sent, in order. */
  const planInputs: { budget?: ToolBudget; request: PlanningRequest }[] = [];
  /** The content store `archive` writes to, in memory: a ContentReader for versionOf. */
  const stored = new Map<string, unknown>();
  const store = {
    async get(ref: string): Promise<unknown> {
      if (!stored.has(ref)) throw new Error(`nothing stored under ${ref}`);
      return stored.get(ref);
    },
  };
  /** The `planner` of the request each planning activity received, as "activity:planner". */
  const planners: string[] = [];
  return {
    calls,
    planners,
    planInputs,
    store,
    activities: {
      async archive({ value }: { value: unknown }) {
        const ref = contentAddress(value).ref;
        stored.set(ref, JSON.parse(JSON.stringify(value)));
        return { ref };
      },
      async analyzeRequirements({ request }: { request: PlanningRequest }) {
        planners.push(`analyzeRequirements:${request.planner}`);
        const extra = script.analyze?.(request, calls.analyze++) ?? {};
        return {
          requirements: analyze(request.goal, { context: request.context }),
          llm_calls: extra.llm_calls ?? [],
          analyzer: extra.analyzer ?? 'rules',
        };
      },
      async generatePlan({
        request,
        stamp,
        budget,
      }: {
        request: PlanningRequest;
        stamp: { id: string; version: number; created_at: string };
        budget?: ToolBudget;
      }) {
        planners.push(`generatePlan:${request.planner}`);
        planInputs.push({ request, ...(budget ? { budget } : {}) });
        const ranked = rankingPlan(request.goal);
        // The stamp as a planner applies it: created_at belongs in the metadata (the strict plan schema refuses it on top).
        const plan = {
          ...ranked,
          id: stamp.id,
          version: stamp.version,
          metadata: { ...ranked.metadata, created_at: stamp.created_at },
        };
        return {
          plan: script.plan ? script.plan(plan, calls.plan++) : plan,
          llm_calls: [],
          planner: 'ranking' as const,
        };
      },
      async critiquePlan({ plan, request }: { plan: Plan; request: PlanningRequest }) {
        planners.push(`critiquePlan:${request.planner}`);
        return { critiques: script.critiques?.(plan, calls.critique++) ?? [], llm_calls: [] };
      },
      async gatekeeper(input: {
        critiques: Critique[];
        strict: boolean;
        max_refinements: number;
        refinements_done: number;
      }): Promise<GatekeeperDecision> {
        const { critiques, ...policy } = input;
        return decide(critiques, policy);
      },
      async lookupTools({ tools }: { tools: string[] }): Promise<Record<string, ToolRoute>> {
        return Object.fromEntries(
          tools.map((t) => [t, { queues: [toolQueue], cost_per_call_usd: 0, tokens_per_call: 0, idempotent: true }]),
        );
      },
      /** No recorded costs: every step forecast from its estimate, as on a worker's first runs. */
      async forecastCost({ plan, routes }: { plan: Plan; routes: Record<string, ToolRoute> }) {
        return forecastPlan(plan, routes, {});
      },
      async recordCosts({ samples }: { samples: Record<string, unknown[]> }) {
        return { subjects: Object.keys(samples).length };
      },
      /** The real verifier over the stub steps' inline data. */
      verifyTask: createVerifierActivities({
        store: {
          get: store.get,
          put: () => Promise.reject(new Error('the stub store is written by archive only')),
        },
      }).verifyTask,
      async executeStep(input: StepExecutionInput): Promise<StepResult> {
        calls.step++;
        const scope = idempotencyScopeOf(input, Context.current().info.workflowExecution!.workflowId);
        const result = script.step?.({ ...input, idempotency_scope: scope }) ?? {};
        return {
          ref: `sha256:${'0'.repeat(64)}`,
          bytes: 2,
          items: 0,
          preview: '[]',
          data: [],
          usage: { calls: 1, tokens: 0, cost_usd: 0 },
          idempotency_key: `${scope}:stub`,
          replayed: false,
          ...result,
        };
      },
    },
  };
}
