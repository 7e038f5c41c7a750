/**
 * From an MCP CallToolResult to the step's `data` (what `${step[N].data...}` templates read):
 *   - `isError: true` → McpToolError (a typed, permanent step failure);
 *   - `structuredContent` when present (e.g. server-filesystem's `{ content: "<text>" }`);
 *   - otherwise the content blocks: a text block that is JSON is parsed, other text stays a string; images, audio
 *     and blobs are described (type, MIME type, size) rather than copied; one block gives its value, several a list;
 *   - a legacy `toolResult` is taken as-is.
 * A structured result whose text lists absolute paths, one a line (server-filesystem's search_files:
 * `{ content: "/notes/a.md\n/notes/b.md" }`), also gives them as a list, `paths` (LISTED_PATHS): a template can
 * pass `${step[N].data.paths}` to a tool that reads a list of paths, or fan a one-path tool out over them, where the
 * text itself would be one string naming every file.
 */
import { LISTED_PATHS } from '../../domain/paths';
import { isRecord } from '../../domain/walk';
import { McpToolError } from './errors';

export interface McpContentBlock {
  type: string;
  [key: string]: unknown;
}

export interface McpCallResult {
  content?: McpContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  toolResult?: unknown;
  [key: string]: unknown;
}

const MAX_LISTED_PATHS = 1000;

/** The lines of `text` when every non-empty one is an absolute POSIX path (at least one); else undefined. */
export function absolutePathLines(text: string): string[] | undefined {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  if (lines.length === 0 || lines.length > MAX_LISTED_PATHS) return undefined;
  return lines.every((l) => l.startsWith('/') && !/[\u0000-\u001f\u007f]/.test(l)) ? lines : undefined;
}

/** `data` with `paths` added when one of its text fields lists absolute paths (and it has no field of that name). */
function withListedPaths(data: Record<string, unknown>): Record<string, unknown> {
  if (LISTED_PATHS in data) return data;
  for (const value of Object.values(data)) {
    const paths = typeof value === 'string' ? absolutePathLines(value) : undefined;
    if (paths) return { ...data, [LISTED_PATHS]: paths };
  }
  return data;
}

function parseText(text: string): unknown {
  const trimmed = text.trim();
  if (/^[[{]/.test(trimmed) || /^(-?\d|"|true$|false$|null$)/.test(trimmed)) {
    try {
      return JSON.parse(trimmed) as unknown;
    } catch {
      // not JSON after all: keep the text
    }
  }
  return text;
}

function blockValue(block: McpContentBlock): unknown {
  switch (block.type) {
    case 'text':
      return parseText(String(block.text ?? ''));
    case 'image':
    case 'audio':
      return {
        type: block.type,
        mimeType: block.mimeType,
        bytes: Math.floor((String(block.data ?? '').length * 3) / 4),
      };
    case 'resource': {
      const r = isRecord(block.resource) ? block.resource : {};
      return typeof r.text === 'string'
        ? { type: 'resource', uri: r.uri, mimeType: r.mimeType, text: parseText(r.text) }
        : {
            type: 'resource',
            uri: r.uri,
            mimeType: r.mimeType,
            bytes: Math.floor((String(r.blob ?? '').length * 3) / 4),
          };
    }
    case 'resource_link':
      return { type: 'resource_link', uri: block.uri, name: block.name, mimeType: block.mimeType };
    default:
      return block;
  }
}

/** The text of a result's text blocks, for error messages. */
export function resultText(result: McpCallResult): string {
  return (result.content ?? [])
    .filter((b) => b.type === 'text')
    .map((b) => String(b.text ?? ''))
    .join('\n')
    .trim();
}

export function mcpResultData(server: string, tool: string, result: McpCallResult): unknown {
  if (result.isError === true)
    throw new McpToolError(server, tool, resultText(result) || 'the tool reported an error without a message');
  if (result.structuredContent !== undefined && result.structuredContent !== null)
    return withListedPaths(result.structuredContent);
  if (!Array.isArray(result.content) && 'toolResult' in result) return result.toolResult ?? null;
  const values = (result.content ?? []).map(blockValue);
  if (values.length === 0) return null;
  return values.length === 1 ? values[0] : values;
}
