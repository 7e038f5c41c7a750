/** What an MCP server says about itself, and how it reaches the tool specs the planners read. */
import { mcpToolSpec } from '../../../src/tools/mcp/pack';
import {
  describedSpec,
  directoriesIn,
  isDirectoryListingTool,
  NOTE_MAX_CHARS,
  type ServerSelfDescription,
} from '../../../src/tools/mcp/self-description';

const readOnly = { readOnlyHint: true };
const NOTHING: ServerSelfDescription = { resources: [], directories: [] };

describe('the tool that lists the directories a server may use', () => {
  test.each([
    ['list_allowed_directories', {}, readOnly, true],
    ['listRoots', {}, readOnly, true],
    ['get_accessible_folders', {}, readOnly, true],
    ['list_allowed_directories', {}, {}, false], // not said to be read-only: never called unasked
    ['list_allowed_directories', { properties: { depth: { type: 'integer' } } }, readOnly, false], // takes arguments
    ['crash', {}, readOnly, false],
    ['list_directory', {}, readOnly, false],
  ])('%s %j %j → %s', (name, schema, annotations, expected) => {
    expect(isDirectoryListingTool({ name, inputSchema: { type: 'object', ...schema }, annotations })).toBe(expected);
  });
});

test('directoriesIn reads the absolute paths and file:// URIs of a listing, line by line or item by item', () => {
  expect(directoriesIn({ content: 'Allowed directories:\n/srv/notes\n/srv/more' })).toEqual([
    '/srv/notes',
    '/srv/more',
  ]);
  expect(directoriesIn(['file:///srv/a%20b', '- /srv/c', 'relative/d', '/srv/e\u0007bell'])).toEqual([
    '/srv/a b',
    '/srv/c',
  ]);
  expect(directoriesIn(Array.from({ length: 20 }, (_, i) => `/d${i}`))).toHaveLength(8);
  expect(directoriesIn([`/${'x'.repeat(NOTE_MAX_CHARS)}`])).toEqual([]);
  expect(directoriesIn(null)).toEqual([]);
});

const readFile = mcpToolSpec('files', {
  name: 'read_file',
  description: 'Read a file.',
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string' }, head: { type: 'number' } },
    required: ['path'],
  },
});
const readMany = mcpToolSpec('files', {
  name: 'read_many',
  description: 'Read files.',
  inputSchema: {
    type: 'object',
    properties: {
      paths: { type: 'array', items: { type: 'string' } },
      folder: { type: 'string', examples: ['/theirs'] },
    },
  },
});
const listRoots = mcpToolSpec('files', {
  name: 'list_roots',
  description: 'The roots.',
  inputSchema: { type: 'object' },
  annotations: readOnly,
});

describe('describedSpec', () => {
  test('a server that says nothing about itself leaves the spec as it is', () => {
    expect(describedSpec(readFile, NOTHING)).toBe(readFile);
  });

  test("its directories: a note on each tool that takes params, and examples on its path params (not the server's own)", () => {
    const about = { ...NOTHING, directories: ['/srv/notes', '/srv/more'] };
    const described = describedSpec(readFile, about);
    expect(described.description).toBe(
      'Read a file. Allowed directories (give absolute paths inside one): /srv/notes, /srv/more.',
    );
    expect(described.parameters.properties).toEqual({
      path: { type: 'string', examples: ['/srv/notes', '/srv/more'] },
      head: { type: 'number' },
    });
    expect(readFile.parameters.properties!.path).toEqual({ type: 'string' }); // the original is not touched
    expect(described.required).toEqual(['path']);

    const many = describedSpec(readMany, about);
    expect(many.parameters.properties).toEqual({
      paths: { type: 'array', items: { type: 'string', examples: ['/srv/notes', '/srv/more'] } },
      folder: { type: 'string', examples: ['/theirs'] },
    });
    expect(describedSpec(listRoots, about)).toBe(listRoots);

    // Long directories: the examples stop before NOTE_MAX_CHARS together.
    const long = ['a', 'b', 'c'].map((d) => `/${d.repeat(200)}`);
    expect(describedSpec(readFile, { ...NOTHING, directories: long }).parameters.properties!.path).toEqual({
      type: 'string',
      examples: long.slice(0, 2),
    });
  });

  test('its instructions and resources go on every tool, in one note of at most NOTE_MAX_CHARS', () => {
    const about = { instructions: 'Files are UTF-8.', resources: ['readme', 'changelog'], directories: [] };
    expect(describedSpec(listRoots, about).description).toBe(
      'The roots. Server instructions: Files are UTF-8. Server resources: readme, changelog.',
    );
    const long = describedSpec(readFile, {
      ...about,
      instructions: 'word '.repeat(400).trim(),
      directories: ['/srv/notes'],
    });
    const note = long.description.slice('Read a file. '.length);
    expect(note.length).toBeLessThanOrEqual(NOTE_MAX_CHARS);
    expect(note).toMatch(
      /^Allowed directories \(give absolute paths inside one\): \/srv\/notes\. Server instructions: word word .*…$/,
    );
  });
});
