/**
 * ProviderChain: the LLM providers of the configuration (PLANNER_LLM_PROVIDERS, or the one OPENAI_BASE_URL names)
 * tried in order for each call. A retryable failure (HTTP 5xx, 429, 408/409, a lost connection, a timeout) moves
 * the call on to the next provider; a refusal (HTTP 400, 401, 403, 404, …) ends it at once, since the next provider
 * would be sent the same request. The chain makes one pass per call and the SDK none: the only repeat of a whole
 * chain is Temporal's activity retry, with its backoff.
 *
 * Every attempt (provider name, model, outcome, milliseconds) is recorded on the answered call's usage (`provider`,
 * `attempts`), which reaches the run's budget and audit; when every provider failed the attempts travel in the
 * error's details (`provider_attempts`, and `every_provider_failed` when each failure was retryable). Keys are never recorded: only the providers' names.
 */
import { APIConnectionError } from 'openai';
import type { LlmProviderConfig } from '../config';
import { LlmCallError, PlannerError } from '../domain/errors';
import type { LlmSettings } from '../domain/llm-settings';
import { describeAttempts, type LlmCallUsage, type ProviderAttempt } from '../domain/llm-calls';
import { LlmClient, type ChatModel, type Completion } from './chat';
import { withLlmCallLabel } from './usage-recorder';

export interface ChainedProvider {
  name: string;
  client: ChatModel;
}

export class ProviderChain implements ChatModel {
  /** The first provider's model: the one plans name as theirs (a call's usage names the model that answered it). */
  readonly model: string;
  /** The first provider's LLM settings: a run's options override them, and every provider is sent the merged ones. */
  readonly defaults: LlmSettings;

  constructor(private readonly providers: readonly ChainedProvider[]) {
    if (providers.length === 0) throw new Error('a provider chain needs at least one provider');
    this.model = providers[0]!.client.model;
    this.defaults = providers[0]!.client.defaults;
  }

  static fromConfig(configs: readonly LlmProviderConfig[]): ProviderChain {
    return new ProviderChain(configs.map((config) => ({ name: config.name, client: new LlmClient(config) })));
  }

  async complete(...args: Parameters<ChatModel['complete']>): Promise<Completion> {
    const attempts: ProviderAttempt[] = [];
    for (const { name, client } of this.providers) {
      const started = Date.now();
      const attempt = (outcome: string): ProviderAttempt => ({
        provider: name,
        model: client.model,
        outcome,
        ms: Date.now() - started,
      });
      const label = (usage: LlmCallUsage): LlmCallUsage => ({
        ...usage,
        provider: name,
        attempts: [...attempts, attempt('ok')],
      });
      let labelled: LlmCallUsage | undefined;
      try {
        const completion = await withLlmCallLabel(
          (usage) => (labelled = label(usage)),
          () => client.complete(...args),
        );
        return { ...completion, usage: labelled ?? label(completion.usage) };
      } catch (error) {
        if (!(error instanceof LlmCallError)) throw error;
        attempts.push(attempt(outcomeOf(error)));
        if (!error.retryable) throw withAttempts(error, attempts);
        if (attempts.length === this.providers.length) throw this.exhausted(error, attempts);
      }
    }
    throw new Error('unreachable: the loop returns or throws on its last provider');
  }

  /** One provider: its own error, attempts added. Several: one error naming every attempt; retryable, as each failure was. */
  private exhausted(last: LlmCallError, attempts: ProviderAttempt[]): LlmCallError {
    if (this.providers.length === 1) {
      Object.assign(last.details, { every_provider_failed: true });
      return withAttempts(last, attempts);
    }
    return new LlmCallError(`every LLM provider failed: ${describeAttempts(attempts)} (last: ${last.message})`, {
      retryable: true,
      details: { provider_attempts: attempts, every_provider_failed: true },
      cause: last,
    });
  }
}

function withAttempts<E extends PlannerError>(error: E, attempts: ProviderAttempt[]): E {
  Object.assign(error.details, { provider_attempts: attempts });
  return error;
}

/** 'HTTP 503', 'timeout', 'unreachable' or 'error', from what LlmClient put in the error. */
function outcomeOf(error: LlmCallError): string {
  const { status, timeout_ms } = error.details;
  if (typeof status === 'number') return `HTTP ${status}`;
  if (timeout_ms !== undefined) return 'timeout';
  return error.cause instanceof APIConnectionError ? 'unreachable' : 'error';
}
