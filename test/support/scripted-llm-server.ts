/**
 * A real HTTP server speaking the chat-completions protocol (POST /v1/chat/completions) for tests: the code under
 * test talks to it through the official `openai` client, over a socket, exactly as it talks to a provider.
 *
 * Replies come from a script played in order (a content string, a content with a delay or usage, or an HTTP error),
 * then from a reply function when one is given; when both run out the server answers 418 "script exhausted" (not
 * retryable), so a test that makes one call too many fails loudly instead of hanging. Optional seeded faults (HTTP
 * 500s and timeouts) are injected before the script is consulted and do not consume it.
 *
 * Usage is simulated deterministically: ~4 characters per token, and the leading messages byte-identical to those
 * of an earlier request count as cached prompt tokens (the way provider prompt caches serve a stable prefix).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { seededRandom } from '../../src/seeded-random';

export interface ChatRequestMessage {
  role: string;
  content: string;
}

export interface ChatRequestBody {
  model: string;
  messages: ChatRequestMessage[];
  temperature?: number;
  response_format?: { type: string };
  [key: string]: unknown;
}

export interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
}

export type ScriptedReply =
  | string
  | { content: string; delay_ms?: number; usage?: Partial<ScriptedUsage> }
  | { status: number; message?: string; delay_ms?: number };

/** Which of the planner's prompts (src/llm/prompts.ts) a request carries, told by the role its user message names. */
export function promptKind(body: ChatRequestBody): 'analysis' | 'plan' | 'premortem' {
  const user = body.messages[1]?.content ?? '';
  if (user.startsWith('Role: pre-mortem critic')) return 'premortem';
  return user.startsWith('Role: analyst') ? 'analysis' : 'plan';
}

/**
 * A reply function for the planner's three prompts: analysis answers a clear goal with these requirement steps and
 * capabilities, the pre-mortem finds nothing, and plan requests get `plan(body)`.
 */
export function plannerReplies(options: {
  steps: string[];
  capabilities: string[];
  intent?: 'query' | 'command';
  plan: (body: ChatRequestBody) => string;
}): (body: ChatRequestBody) => string {
  return (body) => {
    const kind = promptKind(body);
    if (kind === 'premortem') return JSON.stringify({ critiques: [] });
    if (kind === 'plan') return options.plan(body);
    return JSON.stringify({
      is_clear: true,
      clarification: null,
      steps: options.steps,
      required_capabilities: options.capabilities,
      intent: { type: options.intent ?? 'query', confidence: 0.9 },
    });
  };
}

/** A tool call as the LLM planner writes a step, titled after its tool. */
export function toolStep(id: string, tool: string, params: Record<string, unknown>, depends_on: number[] = []) {
  return { id, title: `Run ${tool}`, action: 'tool_call', tool, params, depends_on, parallel: true };
}

/** The plans a test has the scripted planner write, one list of steps each. */
export interface ScriptedPlans {
  /** Answers the planner's prompts: the i-th plan request gets a FEASIBLE plan of `set`'s i-th steps. */
  reply: (body: ChatRequestBody) => string;
  /** The plans of the next plan requests, in order, the last one repeating; counts plan requests from 0 again. */
  set(...plans: readonly object[][]): void;
}

/**
 * For a test file whose tests each script what the LLM planner answers: analysis and the pre-mortem as
 * `plannerReplies` answers them, and each plan request with the next plan given to `set` (a task of one title).
 */
export function scriptedPlans(options: {
  steps: string[];
  capabilities: string[];
  intent?: 'query' | 'command';
  /** The title of the plans' one task. */
  task: string;
  complexity?: number;
}): ScriptedPlans {
  const { task, complexity = 1, ...analysis } = options;
  let plans: readonly object[][] = [];
  let planCalls = 0;
  const reply = plannerReplies({
    ...analysis,
    plan: () => {
      const steps = plans[Math.min(planCalls++, plans.length - 1)];
      if (!steps) throw new Error('scriptedPlans: a plan was requested before set() gave any');
      return JSON.stringify({
        status: 'FEASIBLE',
        tasks: [{ id: '1', title: task, steps }],
        complexity,
        estimate: { cost_usd: 0, tokens: 0, calls: steps.length, duration_ms: 1000 },
      });
    },
  });
  return {
    reply,
    set(...next) {
      plans = next;
      planCalls = 0;
    },
  };
}

/**
 * The LLM planner's replies for a plan of one slow `tool` call (`params` should hold `delay_after_ms`, so a drill can
 * SIGKILL the worker between the tool's effect and its reply).
 */
export function oneSlowStepReplies(
  tool: string,
  title: string,
  params: Record<string, unknown>,
): (body: ChatRequestBody) => string {
  return plannerReplies({
    steps: [title],
    capabilities: [tool],
    intent: 'command',
    plan: () =>
      JSON.stringify({
        status: 'FEASIBLE',
        tasks: [
          {
            id: '1',
            title,
            steps: [{ id: '1.1', title, action: 'tool_call', tool, params, depends_on: [], parallel: true }],
          },
        ],
        complexity: 1,
        estimate: { cost_usd: 0, tokens: 0, calls: 1, duration_ms: 4000 },
      }),
  });
}

/** 'undelivered': a reply was due but the client had gone (it timed out or was killed), so no one was charged. */
export type Outcome = 'reply' | 'undelivered' | 'error' | 'fault-error' | 'fault-timeout';

export interface RecordedRequest {
  body: ChatRequestBody;
  authorization: string | undefined;
  outcome: Outcome;
}

export interface FaultOptions {
  /** Probability in [0, 1] that a request gets a fault instead of its scripted reply. */
  rate: number;
  seed: number;
  /** Default both: 'error' answers `status` (default 500), 'timeout' holds the response for `timeout_ms`. */
  kinds?: readonly ('error' | 'timeout')[];
  status?: number;
  /** How long a 'timeout' fault holds the response (default 120 s); set it above the client's timeout. */
  timeout_ms?: number;
}

export interface ScriptedLlmServerOptions {
  script?: readonly ScriptedReply[];
  /** Called for each request once the script is used up; `index` counts all requests from 0. */
  reply?: (request: ChatRequestBody, index: number) => ScriptedReply | Promise<ScriptedReply>;
  faults?: FaultOptions;
}

export interface ScriptedLlmServer {
  /** For the `openai` client (`baseURL`), e.g. http://127.0.0.1:40123/v1 */
  baseURL: string;
  /**
   * A planner's settings for this server (loadConfig's variables): its URL, a test key, a model name, and every first
   * plan asked of the model (PLANNER_LLM_PLAN=always), since the script's plan replies are what the test runs.
   */
  env: { OPENAI_BASE_URL: string; OPENAI_API_KEY: string; PLANNER_MODEL: string; PLANNER_LLM_PLAN: 'always' };
  /** Every request received, in arrival order, faulted ones included. */
  requests: RecordedRequest[];
  readonly calls: number;
  close(): Promise<void>;
}

function tokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function sameMessage(a: ChatRequestMessage, b: ChatRequestMessage): boolean {
  return a.role === b.role && a.content === b.content;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed || res.writableEnded) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, {
    error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', code: null },
  });
}

export async function startScriptedLlmServer(options: ScriptedLlmServerOptions = {}): Promise<ScriptedLlmServer> {
  const script = [...(options.script ?? [])];
  const random = seededRandom(options.faults?.seed ?? 0);
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let scripted = 0;

  const later = (res: ServerResponse, ms: number, send: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      send();
    }, ms);
    timers.add(timer);
    res.on('close', () => {
      clearTimeout(timer);
      timers.delete(timer);
    });
  };

  const pickFault = (): 'error' | 'timeout' | null => {
    const faults = options.faults;
    if (!faults || faults.rate <= 0 || random() >= faults.rate) return null;
    const kinds = faults.kinds ?? ['error', 'timeout'];
    return kinds[Math.floor(random() * kinds.length)] ?? null;
  };

  const cachedTokens = (messages: readonly ChatRequestMessage[], earlier: readonly RecordedRequest[]): number => {
    let best = 0;
    for (const { body } of earlier) {
      let n = 0;
      while (n < messages.length && n < body.messages.length && sameMessage(messages[n]!, body.messages[n]!)) n++;
      best = Math.max(best, n);
    }
    return messages.slice(0, best).reduce((sum, m) => sum + tokens(m.content), 0);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      sendError(res, 404, `scripted-llm-server: no route ${req.method} ${req.url}`);
      return;
    }
    let body: ChatRequestBody;
    try {
      body = JSON.parse(await readBody(req)) as ChatRequestBody;
    } catch {
      sendError(res, 400, 'scripted-llm-server: the request body is not JSON');
      return;
    }
    const index = requests.length;
    const earlier = requests.slice();
    const record: RecordedRequest = { body, authorization: req.headers.authorization, outcome: 'reply' };
    requests.push(record);
    res.on('close', () => {
      if (record.outcome === 'reply' && !res.writableFinished) record.outcome = 'undelivered';
    });

    const fault = pickFault();
    if (fault === 'error') {
      record.outcome = 'fault-error';
      sendError(res, options.faults?.status ?? 500, 'scripted-llm-server: injected fault');
      return;
    }
    if (fault === 'timeout') {
      record.outcome = 'fault-timeout';
      later(res, options.faults?.timeout_ms ?? 120_000, () =>
        sendError(res, 504, 'scripted-llm-server: injected timeout'),
      );
      return;
    }

    const step: ScriptedReply | undefined =
      scripted < script.length ? script[scripted++] : options.reply ? await options.reply(body, index) : undefined;
    if (step === undefined) {
      record.outcome = 'error';
      sendError(res, 418, `scripted-llm-server: script exhausted after ${script.length} replies (request ${index})`);
      return;
    }
    const reply = typeof step === 'string' ? { content: step } : step;
    const send = (): void => {
      if ('status' in reply) {
        record.outcome = 'error';
        sendError(res, reply.status, reply.message ?? `scripted error ${reply.status}`);
        return;
      }
      const prompt_tokens = reply.usage?.prompt_tokens ?? body.messages.reduce((sum, m) => sum + tokens(m.content), 0);
      const completion_tokens = reply.usage?.completion_tokens ?? tokens(reply.content);
      const cached_tokens = reply.usage?.cached_tokens ?? cachedTokens(body.messages, earlier);
      sendJson(res, 200, {
        id: `chatcmpl-scripted-${index}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: reply.content }, finish_reason: 'stop' }],
        usage: {
          prompt_tokens,
          completion_tokens,
          total_tokens: prompt_tokens + completion_tokens,
          prompt_tokens_details: { cached_tokens },
        },
      });
    };
    if (reply.delay_ms) later(res, reply.delay_ms, send);
    else send();
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => sendError(res, 500, `scripted-llm-server: ${String(error)}`));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;

  const baseURL = `http://127.0.0.1:${port}/v1`;
  return {
    baseURL,
    env: {
      OPENAI_BASE_URL: baseURL,
      OPENAI_API_KEY: 'test-key',
      PLANNER_MODEL: 'gpt-4o-mini',
      PLANNER_LLM_PLAN: 'always',
    },
    requests,
    get calls() {
      return requests.length;
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
