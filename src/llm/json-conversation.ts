/**
 * The one loop the planner, the analyzer and the critic share: ask for a JSON object, parse it, and when the reply
 * is unusable re-prompt IN THE SAME CONVERSATION with the exact errors, a bounded number of times.
 *
 * The messages handed in are never changed: correction turns (the bad reply, then the errors) are appended after
 * them, so every attempt starts with the same bytes and providers' prompt caches serve that prefix.
 */
import {
  PlanParseError,
  PlanSchemaError,
  PlanValidationError,
  PlanningExhaustedError,
  PlannerError,
} from '../domain/errors';
import type { LlmCallUsage } from '../planners/types';
import type { ChatMessage, ChatModel } from './chat';
import { correctionPrompt } from './prompts';

export const MAX_JSON_ATTEMPTS = 3;

/** The errors a bad reply produces; anything else thrown by `parse` is a bug and propagates unchanged. */
type OutputError = PlanParseError | PlanSchemaError | PlanValidationError;

export interface JsonConversation<T> {
  /** The conversation up to the request (system prompt first); built once by the caller. */
  messages: readonly ChatMessage[];
  temperature: number;
  /** Reply text → value; throws an OutputError when the reply is unusable. */
  parse: (text: string) => T;
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
 * after MAX_JSON_ATTEMPTS unusable replies, with `details.attempt_errors` (the error lines of every attempt) and
 * `details.llm_calls`. An LlmCallError from the provider propagates with the calls made before it in
 * `details.llm_calls`, so a retried activity can still charge them.
 */
export async function askForJson<T>(client: ChatModel, conversation: JsonConversation<T>): Promise<JsonAnswer<T>> {
  const messages = [...conversation.messages];
  const llm_calls: LlmCallUsage[] = [];
  const attempt_errors: string[][] = [];
  for (let attempt = 1; ; attempt++) {
    const reply = await client.complete(messages, { temperature: conversation.temperature, json: true }).catch((error: unknown) => {
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
      if (attempt >= MAX_JSON_ATTEMPTS) throw withDetails(new PlanningExhaustedError(attempt, error), { attempt_errors, llm_calls });
      messages.push({ role: 'assistant', content: reply.content }, { role: 'user', content: correctionPrompt(lines) });
    }
  }
}

function isOutputError(error: unknown): error is OutputError {
  return error instanceof PlanParseError || error instanceof PlanSchemaError || error instanceof PlanValidationError;
}

/** One line per problem: "[code] message", with the fix for validation issues. */
function errorLines(error: OutputError): string[] {
  if (error instanceof PlanSchemaError) return error.issues.map((issue) => `[${error.code}] ${issue}`);
  if (error instanceof PlanValidationError) return error.issues.map((issue) => `[${issue.code}] ${issue.message} (fix: ${issue.hint})`);
  return [`[${error.code}] ${error.message}`];
}

/** The domain constructors fix their details; the planning loop adds what it knows (usage, history) to them. */
function withDetails<E extends PlannerError>(error: E, extra: Record<string, unknown>): E {
  Object.assign(error.details, extra);
  return error;
}
