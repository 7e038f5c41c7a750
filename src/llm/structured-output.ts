/**
 * Structured outputs: a reply format sent as `response_format: {type: "json_schema"}` so the provider's decoder
 * (a grammar in llama.cpp, guided decoding in vLLM, Ollama's `format`, OpenAI's structured outputs) can only write
 * JSON of that shape. A provider that refuses a schema gets `json_object` instead, and this process remembers the
 * choice per provider (base URL and model), so the refusal costs one extra request, once.
 */
import { APIError } from 'openai';
import type { JsonSchema } from '../domain/json-schema';

export type ResponseFormatMode = 'json_schema' | 'json_object';

/** The reply's schema, named (providers show the name in errors). */
export interface ReplySchema {
  name: string;
  schema: JsonSchema;
}

export type ResponseFormat =
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; schema: Record<string, unknown>; strict: boolean } };

/** Providers (base URL + model) that refused a json_schema response format; they are sent json_object. */
const refusedSchemas = new Set<string>();

export function providerKey(baseURL: string, model: string): string {
  return `${baseURL} ${model}`;
}

/** The response format to send: the schema when there is one and the provider has not refused schemas. */
export function responseFormatFor(
  provider: string,
  mode: ResponseFormatMode,
  schema: ReplySchema | undefined,
): ResponseFormat {
  if (mode === 'json_object' || !schema || refusedSchemas.has(provider)) return { type: 'json_object' };
  // `strict`: providers that only enforce a schema in strict mode (OpenAI) enforce it; the others ignore the flag.
  return { type: 'json_schema', json_schema: { name: schema.name, schema: schema.schema, strict: true } };
}

/** Whether a failed request was the provider refusing the json_schema format (an HTTP 400/422 about the format). */
export function isSchemaRefusal(error: unknown): boolean {
  if (!(error instanceof APIError) || (error.status !== 400 && error.status !== 422)) return false;
  return /response_format|json_schema|schema|grammar|strict/i.test(error.message);
}

export function rememberSchemaRefused(provider: string): void {
  refusedSchemas.add(provider);
}

/** Whether this process sends `provider` json_object because it refused a schema. */
export function hasRefusedSchemas(provider: string): boolean {
  return refusedSchemas.has(provider);
}
