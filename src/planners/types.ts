/**
 * What the planner strategies implement, by role: a RequirementsAnalyzer (analyze/: rules or LLM), a Planner
 * (generate/: ranking or LLM) and Critics (critique/: rules or the LLM pre-mortem). The caller stamps id, version
 * and timestamps so a planner never chooses them.
 */
import type { ToolBudget } from '../domain/budget';
import type { Critique } from '../domain/critique';
import type { Plan, Refinement } from '../domain/plan';
import type { PlanningRequest } from '../domain/request';
import type { Requirements } from '../domain/requirements';
import type { ToolSpec } from '../domain/tool-spec';
import type { LlmSettings } from '../domain/llm-settings';

import type { LlmCallUsage } from '../domain/llm-calls';

/** One message of an LLM conversation; stored in the content store, never in workflow history. */
export interface TranscriptMessage {
  role: string;
  content: string;
}

export interface PlanStampInput {
  id: string;
  version: number;
  created_at: string;
}

export interface PlanGenerationInput {
  request: PlanningRequest;
  requirements: Requirements;
  catalog: ToolSpec[];
  stamp: PlanStampInput;
  refinement?: Refinement;
  /** For coding goals: the workspace's structure and relevant files, already trimmed to the token budget. */
  workspace?: { text: string; summary: string };
  /** Drop steps until the plan fits the budget (the run option `trim_to_budget`); otherwise only max_steps trims. */
  trim_to_budget?: boolean;
  /** The run's LLM settings (PlanningOptions.llm), for LLM planners. */
  llm?: LlmSettings;
}

export interface PlanGenerationResult {
  plan: Plan;
  llm_calls: LlmCallUsage[];
  transcript?: TranscriptMessage[];
}

export interface Planner {
  readonly kind: 'llm' | 'ranking';
  /** What decides its plans besides the request (the model, how a plan starts, the release's prompts): in the plan cache's key. */
  readonly cacheIdentity?: string;
  generate(input: PlanGenerationInput): Promise<PlanGenerationResult>;
}

export interface RequirementsAnalysisInput {
  request: PlanningRequest;
  catalog: ToolSpec[];
  /** The run's LLM settings (PlanningOptions.llm), for LLM analyzers. */
  llm?: LlmSettings;
}

export interface RequirementsAnalysisResult {
  requirements: Requirements;
  llm_calls: LlmCallUsage[];
  transcript?: TranscriptMessage[];
  /** Why the analysis took a shorter path (the rules sufficed, no LLM call): the run audits it. */
  note?: string;
}

/** Requirements analysis: by rules (analyze/rules-analyzer.ts) or by an LLM (analyze/llm-analyzer.ts). */
export interface RequirementsAnalyzer {
  readonly kind: 'llm' | 'rules';
  analyze(input: RequirementsAnalysisInput): Promise<RequirementsAnalysisResult>;
}

/** A critic reviews a plan before it runs; the gatekeeper (src/domain/critique.ts `decide`) weighs the critiques. */
export interface CritiqueContext {
  request: PlanningRequest;
  catalog: ToolSpec[];
  /** What is left to spend; the request's limits when omitted. */
  budget?: ToolBudget;
  /** The run's LLM settings (PlanningOptions.llm), for LLM critics. */
  llm?: LlmSettings;
  /** What the other critics found, for a critic that `weighsFindings` (it runs after them). */
  findings?: readonly Critique[];
}

export interface CriticResult {
  critiques: Critique[];
  llm_calls: LlmCallUsage[];
  transcript?: TranscriptMessage[];
}

export interface Critic {
  readonly id: string;
  /** Runs after the other critics and sees their critiques (`CritiqueContext.findings`). */
  readonly weighsFindings?: boolean;
  review(plan: Plan, context: CritiqueContext): Promise<CriticResult>;
}
