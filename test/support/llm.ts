/** Shared data for the LLM tests: a goal, its requirements, plan replies as a model writes them, a client. */
import type { Requirements } from '../../src/domain/requirements';
import type { LlmConfig } from '../../src/config';
import { LlmClient } from '../../src/llm/chat';
import { startScriptedLlmServer, type ScriptedLlmServer, type ScriptedLlmServerOptions } from './scripted-llm-server';

export const MODEL = 'gpt-4o-mini';
/** The goal the LLM tests plan (build its request with `request(LLM_GOAL)` from ./planning). */
export const LLM_GOAL = "Get last week's contaminated shipments and the contaminants found in them";

export const requirements: Requirements = {
  is_clear: true,
  clarification: null,
  steps: ['Fetch contaminated shipments of the period', 'Fetch the contaminants detected in those shipments'],
  required_capabilities: ['shipments', 'contaminants-detected'],
  complexity_indicators: {
    estimated_steps: 2,
    external_services: [],
    has_conditionals: false,
    has_iteration: false,
    has_temporal_filter: true,
  },
  intent: { type: 'query', confidence: 0.9 },
  entities: [{ type: 'record', value: 'shipments' }],
  temporal_references: [{ phrase: 'last week', start: '2026-11-16', end: '2026-11-22' }],
};

type StepReply = { id: string; title: string; tool: string; params: Record<string, unknown>; depends_on: number[] };

/** The plan as a model writes it: no id, version, goal or metadata. */
export function planReply(steps: StepReply[] = validSteps()): string {
  return JSON.stringify({
    status: 'FEASIBLE',
    missing_capabilities: [],
    assumptions: [],
    complexity: 2,
    estimate: { cost_usd: 0.0002, tokens: 600, calls: 2, duration_ms: 1500 },
    tasks: [
      { id: '1', title: 'Collect the data', steps: steps.map((s) => ({ action: 'tool_call', parallel: false, ...s })) },
    ],
  });
}

export function validSteps(): StepReply[] {
  return [
    {
      id: '1.1',
      title: 'Fetch contaminated shipments',
      tool: 'shipments',
      params: { date_from: '2026-11-16', date_to: '2026-11-22', has_contaminants: true },
      depends_on: [],
    },
    {
      id: '1.2',
      title: 'Fetch their contaminants',
      tool: 'contaminants-detected',
      params: { shipment_ids: '${step[0].data.*.id}' },
      depends_on: [0],
    },
  ];
}

/** Starts a scripted server and a client on it; `close()` goes in afterEach. */
export class LlmHarness {
  server!: ScriptedLlmServer;
  client!: LlmClient;

  async start(
    options: ScriptedLlmServerOptions,
    client: Partial<Omit<LlmConfig, 'baseURL' | 'apiKey'>> = {},
  ): Promise<this> {
    this.server = await startScriptedLlmServer(options);
    this.client = new LlmClient({
      model: MODEL,
      timeoutMs: 10_000,
      ...client,
      baseURL: this.server.baseURL,
      apiKey: 'test-key',
    });
    return this;
  }

  async close(): Promise<void> {
    await this.server?.close();
  }

  /** Messages of request i as sent over the wire. */
  messages(i: number): { role: string; content: string }[] {
    return this.server.requests[i]!.body.messages;
  }
}
