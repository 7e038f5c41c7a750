import { StepFailedError } from '../../../src/domain/errors';
import { McpToolError } from '../../../src/tools/mcp/errors';
import { nameTags } from '../../../src/domain/text';
import { jsonSchemaParams, mcpTaskQueue, mcpToolSpec } from '../../../src/tools/mcp/pack';
import { mcpResultData } from '../../../src/tools/mcp/result';

describe('MCP result → step data', () => {
  test('structuredContent wins over the content blocks', () => {
    expect(
      mcpResultData('s', 't', { content: [{ type: 'text', text: 'x' }], structuredContent: { content: 'x', n: 1 } }),
    ).toEqual({ content: 'x', n: 1 });
  });

  test('one text block: JSON is parsed, other text stays text', () => {
    expect(mcpResultData('s', 't', { content: [{ type: 'text', text: '[{"id": 1}, {"id": 2}]' }] })).toEqual([
      { id: 1 },
      { id: 2 },
    ]);
    expect(mcpResultData('s', 't', { content: [{ type: 'text', text: ' {"a": true}\n' }] })).toEqual({ a: true });
    expect(mcpResultData('s', 't', { content: [{ type: 'text', text: '[FILE] notes.txt' }] })).toBe('[FILE] notes.txt');
    expect(mcpResultData('s', 't', { content: [{ type: 'text', text: '{not json' }] })).toBe('{not json');
    expect(mcpResultData('s', 't', { content: [{ type: 'text', text: '42' }] })).toBe(42);
  });

  test('several blocks give a list; binary blocks are described, not copied', () => {
    expect(
      mcpResultData('s', 't', {
        content: [
          { type: 'text', text: 'hello' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'file:///a.json', mimeType: 'application/json', text: '{"k":1}' } },
          { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAAAAAA' } },
        ],
      }),
    ).toEqual([
      'hello',
      { type: 'image', mimeType: 'image/png', bytes: 3 },
      { type: 'resource', uri: 'file:///a.json', mimeType: 'application/json', text: { k: 1 } },
      { type: 'resource', uri: 'file:///b.bin', mimeType: undefined, bytes: 6 },
    ]);
  });

  test('a structured text listing absolute paths, one a line, also gives them as the list `paths`; other text does not', () => {
    expect(mcpResultData('s', 't', { structuredContent: { content: '/notes/a.md\n/notes/meetings/b.md\n' } })).toEqual({
      content: '/notes/a.md\n/notes/meetings/b.md\n',
      paths: ['/notes/a.md', '/notes/meetings/b.md'],
    });
    expect(mcpResultData('s', 't', { structuredContent: { content: 'No matches found' } })).toEqual({
      content: 'No matches found',
    });
    expect(mcpResultData('s', 't', { structuredContent: { content: '/notes/a.md\n[FILE] b.md' } })).toEqual({
      content: '/notes/a.md\n[FILE] b.md',
    });
    // A field of the server's own is never overwritten.
    expect(mcpResultData('s', 't', { structuredContent: { content: '/a', paths: 3 } })).toEqual({
      content: '/a',
      paths: 3,
    });
  });

  test('no content is null; a legacy toolResult is taken as-is', () => {
    expect(mcpResultData('s', 't', { content: [] })).toBeNull();
    expect(mcpResultData('s', 't', { toolResult: { ok: 1 } })).toEqual({ ok: 1 });
  });

  test("isError → a permanent, typed McpToolError carrying the tool's message", () => {
    const run = () =>
      mcpResultData('files', 'read_text_file', {
        isError: true,
        content: [{ type: 'text', text: 'ENOENT: no such file' }],
      });
    expect(run).toThrow(McpToolError);
    try {
      run();
    } catch (e) {
      expect(e).toBeInstanceOf(StepFailedError);
      expect(e).toMatchObject({
        code: 'PLAN-008',
        retryable: false,
        details: { server: 'files', tool: 'read_text_file', error: 'ENOENT: no such file' },
      });
    }
  });
});

describe('MCP tool → catalog entry', () => {
  const info = {
    name: 'read_text_file',
    description: 'Read a file.',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' }, head: { type: 'number' } },
      required: ['path'],
    },
    annotations: { readOnlyHint: true },
  };

  test('spec: name, JSON Schema params, queue, idempotency from annotations, tags from the name', () => {
    expect(mcpToolSpec('files', info)).toMatchObject({
      name: 'read_text_file',
      description: 'Read a file.',
      required: ['path'],
      task_queue: 'durable-planner-tools-mcp-files',
      idempotent: true,
      tags: ['read', 'text', 'file'],
    });
    expect(mcpToolSpec('files', { ...info, annotations: { idempotentHint: true } }).idempotent).toBe(true);
    expect(mcpToolSpec('files', { ...info, annotations: { destructiveHint: true } }).idempotent).toBe(false);
    expect(mcpToolSpec('files', { name: 'ping' })).toMatchObject({
      description: 'ping',
      parameters: { type: 'object', properties: {} },
      required: [],
    });
    expect(mcpTaskQueue('x')).toBe('durable-planner-tools-mcp-x');
  });

  test('an object result with a text field declares the optional `paths` list a listing of paths gives', () => {
    const text = { type: 'object', properties: { content: { type: 'string' } }, additionalProperties: false };
    expect(mcpToolSpec('s', { name: 'search', inputSchema: { type: 'object' }, outputSchema: text }).result).toEqual({
      ...text,
      properties: {
        content: { type: 'string' },
        paths: expect.objectContaining({ type: 'array', items: { type: 'string' } }),
      },
    });
    const counts = { type: 'object', properties: { n: { type: 'number' } } };
    expect(mcpToolSpec('s', { name: 'count', inputSchema: { type: 'object' }, outputSchema: counts }).result).toEqual(
      counts,
    );
  });

  test('tags: words of snake, kebab and camel case names, without stop words', () => {
    expect(nameTags('list_directory_with_sizes')).toEqual(['list', 'directory', 'sizes']);
    expect(nameTags('getFileInfo')).toEqual(['get', 'file', 'info']);
    expect(nameTags('search-the-web')).toEqual(['search', 'web']);
  });

  test('params schema checks the JSON Schema and reports readable issues', () => {
    const schema = jsonSchemaParams(mcpToolSpec('files', info).parameters);
    expect(schema.safeParse({ path: '/a' }).success).toBe(true);
    const bad = schema.safeParse({ path: 5, head: 'x' });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['path', 'expected string, got number'],
      ['head', 'expected number, got string'],
    ]);
    expect(schema.safeParse({}).error!.issues[0]!.message).toBe('missing required param "path"');
    expect(schema.safeParse('x').success).toBe(false);
  });
});
