/**
 * A filesystem server's catalog, as the eval's files goals see it: the tools of @modelcontextprotocol/server-filesystem
 * (a subset, their names and descriptions), each result text. A second domain for rules that must not be the waste
 * demo's.
 */
import type { ToolSpec } from '../../src/domain/tool-spec';
import { mcpToolSpec } from '../../src/tools/mcp/pack';

const TEXT_RESULT = { type: 'object', properties: { content: { type: 'string' } }, required: ['content'] };
const pathParam = { type: 'string', examples: ['/srv/notes'] };
const onePath = { type: 'object', properties: { path: pathParam }, required: ['path'] };
/** Tools of a filesystem server, named as @modelcontextprotocol/server-filesystem names them. */
export const FILES_CATALOG: ToolSpec[] = [
  ['read_text_file', 'Read the complete contents of a file as text.', onePath],
  ['get_file_info', 'Retrieve detailed metadata about a file or directory.', onePath],
  ['list_directory', 'Get a detailed listing of all files and directories in a specified path.', onePath],
  ['directory_tree', 'Get a recursive tree view of files and directories as a JSON structure.', onePath],
  [
    'move_file',
    'Move or rename files and directories.',
    {
      type: 'object',
      properties: { source: { type: 'string' }, destination: { type: 'string' } },
      required: ['source', 'destination'],
    },
  ],
  [
    'search_files',
    'Recursively search for files matching a glob-style pattern. Returns full paths to all matching items.',
    { type: 'object', properties: { path: pathParam, pattern: { type: 'string' } }, required: ['path', 'pattern'] },
  ],
  [
    'read_multiple_files',
    'Read the contents of multiple files simultaneously.',
    { type: 'object', properties: { paths: { type: 'array', items: pathParam } }, required: ['paths'] },
  ],
].map(([name, description, inputSchema]) =>
  mcpToolSpec('files', {
    name,
    description,
    inputSchema,
    outputSchema: TEXT_RESULT,
    annotations: { readOnlyHint: name !== 'move_file' },
  } as never),
);
