/**
 * LlmClient: one chat-completions call through the official `openai` client, with usage and cost recorded.
 * The SDK's own retries are off: a failed call surfaces at once as LlmCallError (PLAN-005) and Temporal's activity
 * retry policy decides whether to try again, guided by `retryable`.
 */
import { Context } from '@temporalio/activity';
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { Agent, fetch as undiciFetch } from 'undici';
import { LlmCallError } from '../domain/errors';
import type { LlmCallUsage } from '../domain/llm-calls';
import type { LlmConfig } from '../config';
import type { LlmSettings } from '../domain/llm-settings';
import { costOf } from './prices';
import { recordLlmCall } from './usage-recorder';
import { observeLlmCall } from '../telemetry/observe';
import {
  isSchemaRefusal,
  providerKey,
  rememberSchemaRefused,
  responseFormatFor,
  type ReplySchema,
  type ResponseFormatMode,
} from './structured-output';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface CompleteOptions {
  temperature: number;
  /** Ask for a JSON object (response_format json_object); the messages must then mention JSON. */
  json?: boolean;
  /** Ask for JSON of this schema (response_format json_schema; json_object for providers that refuse schemas). */
  schema?: ReplySchema;
  /** Cap on the reply's tokens (max_tokens); the provider's default when unset. */
  maxTokens?: number;
  /** This call's timeout instead of the client's. */
  timeoutMs?: number;
}

export interface Completion {
  content: string;
  usage: LlmCallUsage;
}

/**
 * What the planners talk to: one provider (LlmClient) or a fallback chain of them (ProviderChain, ./providers.ts).
 * `defaults` are the worker's LLM settings a run's options override (askForJson merges them).
 */
export type ChatModel = Pick<LlmClient, 'model' | 'complete' | 'defaults'>;

/**
 * Node's own fetch gives up waiting for response headers after 300 s, and a completion that is not streamed sends its
 * headers only when it is done: a local model's call of more than 5 minutes failed whatever PLANNER_LLM_TIMEOUT_MS
 * said. This fetch has no such limit of its own; the SDK's timeout (the call's or the client's) decides.
 */
const untimedDispatcher = new Agent({ headersTimeout: 0, bodyTimeout: 0 });
const untimedFetch = ((url: string, init?: RequestInit) =>
  undiciFetch(url, { ...(init as object), dispatcher: untimedDispatcher })) as unknown as typeof fetch;

/**
 * The running activity's cancellation signal: a cancelled run, or a worker shutting down (SIGTERM), aborts the call
 * in flight instead of waiting up to the LLM timeout for it. Outside an activity (the CLI, unit tests) none.
 */
function activitySignal(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}

/** Local servers (Ollama, vLLM) ignore the key, but the SDK refuses to run without one. */
const NO_KEY = 'no-key';

export class LlmClient {
  readonly model: string;
  /** The worker's settings for every call (PLANNER_LLM_*); a run's options override them. */
  readonly defaults: LlmSettings;
  private readonly openai: OpenAI;
  private readonly baseURL: string;
  private readonly timeoutMs: number;
  private readonly responseFormat: ResponseFormatMode;

  constructor(config: LlmConfig) {
    this.model = config.model;
    this.responseFormat = config.responseFormat ?? 'json_schema';
    this.defaults = config.defaults ?? {};
    this.baseURL = config.baseURL;
    this.timeoutMs = config.timeoutMs;
    this.openai = new OpenAI({
      baseURL: config.baseURL,
      apiKey: config.apiKey ?? NO_KEY,
      timeout: config.timeoutMs,
      maxRetries: 0,
      fetch: untimedFetch,
    });
  }

  /** One call. Throws LlmCallError when the provider fails; never retries. */
  async complete(messages: readonly ChatMessage[], options: CompleteOptions): Promise<Completion> {
    let response: OpenAI.Chat.Completions.ChatCompletion;
    const started = Date.now();
    const provider = providerKey(this.baseURL, this.model);
    const format =
      options.json || options.schema ? responseFormatFor(provider, this.responseFormat, options.schema) : undefined;
    const signal = activitySignal();
    try {
      response = await this.openai.chat.completions.create(
        {
          model: this.model,
          messages: [...messages],
          temperature: options.temperature,
          ...(format ? { response_format: format } : {}),
          ...(options.maxTokens ? { max_tokens: options.maxTokens } : {}),
        },
        { ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}), ...(signal ? { signal } : {}) },
      );
    } catch (error) {
      // Cancelled, not failed: the activity's cancellation (Temporal retries it elsewhere), never a provider's fault.
      if (signal?.aborted) throw signal.reason;
      if (format?.type === 'json_schema' && isSchemaRefusal(error)) {
        // Refused, not answered: nothing to charge. This provider gets json_object from now on.
        rememberSchemaRefused(provider);
        return await this.complete(messages, options);
      }
      observeLlmCall(this.model, started, { error });
      throw this.toLlmCallError(error, Date.now() - started, options.timeoutMs);
    }
    const choice = response.choices[0];
    if (!choice) {
      throw new LlmCallError(`LLM provider at ${this.baseURL} returned no choices for model "${this.model}"`, {
        retryable: true,
        details: this.where(),
      });
    }
    const prompt_tokens = response.usage?.prompt_tokens ?? 0;
    const completion_tokens = response.usage?.completion_tokens ?? 0;
    const cached_tokens = response.usage?.prompt_tokens_details?.cached_tokens ?? 0;
    const usage: LlmCallUsage = {
      model: this.model,
      prompt_tokens,
      completion_tokens,
      cached_tokens,
      cost_usd: costOf(this.model, { prompt_tokens, completion_tokens, cached_tokens }),
    };
    await recordLlmCall(usage);
    observeLlmCall(this.model, started, { usage });
    return { content: choice.message.content ?? '', usage };
  }

  private where(): Record<string, unknown> {
    return { model: this.model, base_url: this.baseURL };
  }

  /** Rate limits, server faults, timeouts and lost connections are retryable; a request the provider refuses is not. */
  private toLlmCallError(error: unknown, elapsedMs: number, timeoutMs = this.timeoutMs): unknown {
    // Not every fetch lets the SDK tell its own timeout from a lost connection (it then reports a plain connection
    // error), so a connection error at the deadline counts as the timeout it is.
    if (error instanceof APIConnectionTimeoutError || (error instanceof APIConnectionError && elapsedMs >= timeoutMs)) {
      return new LlmCallError(`LLM call to ${this.baseURL} timed out after ${timeoutMs} ms`, {
        retryable: true,
        details: { ...this.where(), timeout_ms: timeoutMs },
        cause: error,
      });
    }
    if (error instanceof APIConnectionError) {
      return new LlmCallError(`could not reach the LLM provider at ${this.baseURL}: ${error.message}`, {
        retryable: true,
        details: this.where(),
        cause: error,
      });
    }
    if (!(error instanceof APIError)) return error; // not a provider fault: a bug, let it surface as it is
    const status = error.status;
    const retryable = status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;
    const details = { ...this.where(), status: status ?? null, provider_message: error.message.slice(0, 500) };
    return new LlmCallError(
      `${statusAdvice(status, this.model, this.baseURL)} (provider said: ${error.message.slice(0, 200)})`,
      {
        retryable,
        details,
        cause: error,
      },
    );
  }
}

function statusAdvice(status: number | undefined, model: string, baseURL: string): string {
  switch (status) {
    case 400:
      return `the LLM provider rejected the request (HTTP 400): check that model "${model}" supports JSON mode`;
    case 401:
      return `the LLM provider rejected the API key (HTTP 401): check OPENAI_API_KEY`;
    case 403:
      return `the LLM provider denied access (HTTP 403): check that the API key may use model "${model}"`;
    case 404:
      return `the LLM provider has no such model or endpoint (HTTP 404): check PLANNER_MODEL ("${model}") and OPENAI_BASE_URL ("${baseURL}", the API root such as .../v1)`;
    case 429:
      return `the LLM provider is rate limiting (HTTP 429)`;
    case undefined:
      return `the LLM call to ${baseURL} failed without an HTTP status`;
    default:
      return status >= 500
        ? `the LLM provider failed (HTTP ${status})`
        : `the LLM provider refused the request (HTTP ${status})`;
  }
}
