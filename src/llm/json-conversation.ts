/**
 * The one loop the planner, the analyzer and the critic share: ask for a JSON object, parse it, and when the reply
 * is unusable re-prompt IN THE SAME CONVERSATION with the exact errors, a bounded number of times.
 *
 * The messages handed in are never changed: correction turns (the bad reply, then the errors) are appended after
 * them, so every attempt starts with the same bytes and providers' prompt caches serve that prefix.
 *
 * A reply identical to one already rejected is not answered as if it were new: the correction says it is the same
 * reply and asks for a different one (at a higher temperature); a second repeat ends the conversation at once with
 * PLAN-009 instead of spending the remaining attempts on more of the same.
 */
import {
  PlanParseError,
  PlanSchemaError,
  PlanValidationError,
  PlanningExhaustedError,
  PlannerError,
} from '../domain/errors';
import type { LlmCallUsage } from '../domain/llm-calls';
import { mergeLlmSettings, type LlmSettings } from '../domain/llm-settings';
import type { ChatMessage, ChatModel } from './chat';
import { correctionPrompt, repeatedReplyPrompt } from './prompts';
import type { ReplySchema } from './structured-output';

/** Attempts per answer unless the worker's configuration or the run's options say otherwise. */
export const MAX_JSON_ATTEMPTS = 3;
/** How much of the last refused reply a PLAN-009 failure keeps in its details. */
const LAST_REPLY_CHARS = 600;
/** How much warmer the attempt after a repeated reply is (a model at temperature 0 repeats itself exactly). */
const REPEAT_TEMPERATURE_STEP = 0.4;

/** Opens the last turn of a conversation given up on: the errors of its last reply, which no call carried. */
export const NOT_SENT = 'Not sent (the attempts ran out); the last reply was refused for:';

/** The conversations PLAN-009 errors gave up on, off their details (which go into workflow history). */
const givenUp = new WeakMap<PlanningExhaustedError, ChatMessage[]>();

/**
 * The conversation `askForJson` gave up on when `error` is its PLAN-009: the request, every refused reply each
 * followed by its errors, the last turn opening with NOT_SENT. A caller with a fallback keeps it for the audit.
 */
export function refusedConversation(error: unknown): ChatMessage[] | undefined {
  return error instanceof PlanningExhaustedError ? givenUp.get(error) : undefined;
}

/** The errors a bad reply produces; anything else thrown by `parse` is a bug and propagates unchanged. */
type OutputError = PlanParseError | PlanSchemaError | PlanValidationError;

export interface JsonConversation<T> {
  /** The conversation up to the request (system prompt first); built once by the caller. */
  messages: readonly ChatMessage[];
  /** This conversation's own temperature; the worker's or the run's settings override it. */
  temperature: number;
  /** This conversation's own cap on a reply's tokens (a small model can run on for minutes); the settings override it. */
  maxTokens: number;
  /** Reply text → value; throws an OutputError when the reply is unusable. */
  parse: (text: string) => T;
  /** The reply's JSON Schema, sent as a structured output (json_object for providers that refuse schemas). */
  schema?: ReplySchema;
  /** The run's LLM settings (PlanningOptions.llm); they win over the worker's (client.defaults). */
  settings?: LlmSettings;
}

export interface JsonAnswer<T> {
  value: T;
  /** One entry per call made, failed attempts included. */
  llm_calls: LlmCallUsage[];
  /** The whole conversation, correction turns and the accepted reply included (kept out of history by reference). */
  transcript: ChatMessage[];
}

/**
 * Runs the conversation until `parse` accepts a reply. Throws PlanningExhaustedError (PLAN-009, not retryable)
 * after `attempts` unusable replies (MAX_JSON_ATTEMPTS unless configured), or at a second repeated reply, with `details.attempt_errors` (the error lines of every attempt), `details.last_reply` (its first 600 characters) and
 * `details.llm_calls`. An LlmCallError from the provider propagates with the calls made before it in
 * `details.llm_calls`, so a retried activity can still charge them.
 */
export async function askForJson<T>(client: ChatModel, conversation: JsonConversation<T>): Promise<JsonAnswer<T>> {
  const settings = mergeLlmSettings(client.defaults, conversation.settings);
  const maxAttempts = settings.attempts ?? MAX_JSON_ATTEMPTS;
  const baseTemperature = settings.temperature ?? conversation.temperature;
  const messages = [...conversation.messages];
  const llm_calls: LlmCallUsage[] = [];
  const attempt_errors: string[][] = [];
  const rejected = new Set<string>();
  let temperature = baseTemperature;
  let repeats = 0;
  for (let attempt = 1; ; attempt++) {
    const options = {
      temperature,
      json: true,
      ...(conversation.schema ? { schema: conversation.schema } : {}),
      maxTokens: settings.max_tokens ?? conversation.maxTokens,
      ...(settings.timeout_ms ? { timeoutMs: settings.timeout_ms } : {}),
    };
    const reply = await client.complete(messages, options).catch((error: unknown) => {
      throw llm_calls.length > 0 && error instanceof PlannerError ? withDetails(error, { llm_calls }) : error;
    });
    llm_calls.push(reply.usage);
    try {
      const value = conversation.parse(reply.content);
      return { value, llm_calls, transcript: [...messages, { role: 'assistant', content: reply.content }] };
    } catch (error) {
      if (!isOutputError(error)) throw error;
      const lines = errorLines(error);
      attempt_errors.push(lines);
      const key = sameReplyKey(reply.content);
      const repeated = rejected.has(key);
      rejected.add(key);
      if (repeated) repeats += 1;
      if (attempt >= maxAttempts || repeats >= 2) {
        const exhausted = withDetails(new PlanningExhaustedError(attempt, error), {
          attempt_errors,
          llm_calls,
          // What the model last said, shortened: an operator (or the eval) sees what it was refused for.
          last_reply: reply.content.slice(0, LAST_REPLY_CHARS),
          ...(repeats > 0 ? { repeated_replies: repeats } : {}),
        });
        givenUp.set(exhausted, [
          ...messages,
          { role: 'assistant', content: reply.content },
          { role: 'user', content: [NOT_SENT, ...lines].join('\n') },
        ]);
        throw exhausted;
      }
      temperature = repeated
        ? Math.min(2, Math.max(temperature, baseTemperature) + REPEAT_TEMPERATURE_STEP)
        : baseTemperature;
      messages.push(
        { role: 'assistant', content: reply.content },
        { role: 'user', content: repeated ? repeatedReplyPrompt(lines) : correctionPrompt(lines) },
      );
    }
  }
}

/** Replies that differ only in whitespace are the same reply. */
function sameReplyKey(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text.replace(/\s+/g, ' ').trim();
  }
}

function isOutputError(error: unknown): error is OutputError {
  return error instanceof PlanParseError || error instanceof PlanSchemaError || error instanceof PlanValidationError;
}

/** One line per problem: "[code] message", with the fix for validation issues. */
function errorLines(error: OutputError): string[] {
  if (error instanceof PlanSchemaError)
    return error.issues.map((issue) => `[${error.code}] ${missingFieldLine(issue)}`);
  if (error instanceof PlanValidationError)
    return error.issues.map((issue) => `[${issue.code}] ${issue.message} (fix: ${issue.hint})`);
  return [`[${error.code}] ${error.message}`];
}

/** zod says "expected array, received undefined"; the model needs to hear that a required field is missing. */
function missingFieldLine(issue: string): string {
  const m = /^(.+): Invalid input: expected (\w+), received undefined$/.exec(issue);
  return m ? `${m[1]}: missing required field (${m[2]}); add "${m[1]!.split('.').at(-1)}"` : issue;
}

/** The domain constructors fix their details; the planning loop adds what it knows (usage, history) to them. */
function withDetails<E extends PlannerError>(error: E, extra: Record<string, unknown>): E {
  Object.assign(error.details, extra);
  return error;
}
