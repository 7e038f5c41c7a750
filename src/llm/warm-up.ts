/**
 * Warm start: a worker with an LLM sends the system prompt every role shares for its default catalog once, asking for
 * one token back, so the provider's prompt cache (llama.cpp's slot, vLLM's prefix cache, hosted prompt caches) holds
 * it before the first run and the first analysis, plan or pre-mortem is not the slow one. Best effort: a failure is reported, never thrown.
 */
import type { ToolSpec } from '../domain/tool-spec';
import type { ChatModel } from './chat';
import { systemPrompt } from './prompts';

export interface WarmUp {
  ms: number;
  prompt_tokens: number;
  cached_tokens: number;
}

export async function warmPromptCache(
  client: Pick<ChatModel, 'complete'>,
  catalog: readonly ToolSpec[],
): Promise<WarmUp | { error: string }> {
  const started = Date.now();
  try {
    const { usage } = await client.complete(
      [
        { role: 'system', content: systemPrompt(catalog) },
        { role: 'user', content: 'Reply with {}.' },
      ],
      { temperature: 0, maxTokens: 1 },
    );
    return { ms: Date.now() - started, prompt_tokens: usage.prompt_tokens, cached_tokens: usage.cached_tokens };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}
