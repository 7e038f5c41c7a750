import { validatePlan } from '../../../src/domain/validation';
import type { ToolSpec } from '../../../src/domain/tool-spec';
import { analyzeGoalByRules } from '../../../src/planners/analyze/rules-analyzer';
import { RankingPlanner } from '../../../src/planners/generate/ranking-planner';
import { mcpToolSpec } from '../../../src/tools/mcp/pack';
import { request, STAMP, stepsOf } from '../../support/planning';

const TEXT_RESULT = {
  type: 'object',
  properties: { content: { type: 'string' } },
  required: ['content'],
  additionalProperties: false,
};
const ROOT = '/srv/notes';
const pathParam = { type: 'string', examples: [ROOT] };

/** A filesystem-like server: a glob search, readers of one and of several files, a writer. */
const FILES: ToolSpec[] = [
  mcpToolSpec('files', {
    name: 'search_files',
    description:
      'Recursively search for files matching a glob-style pattern. Returns full paths to all matching items.',
    inputSchema: {
      type: 'object',
      properties: { path: pathParam, pattern: { type: 'string' } },
      required: ['path', 'pattern'],
    },
    outputSchema: TEXT_RESULT,
  }),
  mcpToolSpec('files', {
    name: 'read_text_file',
    description: 'Read the complete contents of a file as text.',
    inputSchema: { type: 'object', properties: { path: pathParam }, required: ['path'] },
    outputSchema: TEXT_RESULT,
  }),
  mcpToolSpec('files', {
    name: 'read_multiple_files',
    description: 'Read the contents of multiple files simultaneously.',
    inputSchema: { type: 'object', properties: { paths: { type: 'array', items: pathParam } }, required: ['paths'] },
    outputSchema: TEXT_RESULT,
  }),
  mcpToolSpec('files', {
    name: 'write_file',
    description: 'Create a new file or overwrite an existing file.',
    inputSchema: {
      type: 'object',
      properties: { path: pathParam, content: { type: 'string' } },
      required: ['path', 'content'],
    },
    outputSchema: TEXT_RESULT,
  }),
];

/** Another server, not a filesystem: a plain-words document search and a reader of one document. */
const DOCS: ToolSpec[] = [
  mcpToolSpec('docs', {
    name: 'findDocuments',
    description: 'Find wiki documents by words of their title. Returns the path of each document, one a line.',
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string', description: 'Words of the title' } },
      required: ['query'],
    },
    outputSchema: { type: 'object', properties: { text: { type: 'string' } }, additionalProperties: false },
  }),
  mcpToolSpec('docs', {
    name: 'readDocument',
    description: 'Read one wiki document.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    outputSchema: { type: 'object', properties: { text: { type: 'string' } }, additionalProperties: false },
  }),
];

function plan(goal: string, catalog: ToolSpec[], context: { role: 'user'; content: string }[] = []) {
  const req = request(goal, { tool_catalog: 'files', context });
  const requirements = analyzeGoalByRules({ request: req, catalog });
  return new RankingPlanner().plan({ request: req, requirements, catalog, stamp: STAMP });
}

describe('the ranking planner answers a question about stored files by searching for them and reading what it finds', () => {
  test('no tool is named for "the travel budget": a glob, which matches names only, lists every file, and one call reads them all', () => {
    const p = plan('What is the travel budget for Q3 2026?', FILES);
    expect(p.status).toBe('FEASIBLE');
    expect(stepsOf(p)).toEqual([
      { tool: 'search_files', params: { path: ROOT, pattern: '**/*.*' }, depends_on: [] },
      { tool: 'read_multiple_files', params: { paths: '${step[0].data.paths}' }, depends_on: [0] },
    ]);
    expect(p.assumptions.join('\n')).toContain('search_files lists every file');
    expect(validatePlan(p, { catalog: FILES })).toEqual([]);
  });

  test('a question about a fact no file is named for ("Tobias Kern\'s phone number", in contacts.csv) reads every file too', () => {
    const p = plan("What is Tobias Kern's phone number?", FILES);
    expect(p.status).toBe('FEASIBLE');
    expect(stepsOf(p).map((s) => [s.tool, s.params.pattern])).toEqual([
      ['search_files', '**/*.*'],
      ['read_multiple_files', undefined],
    ]);
  });

  test('a step named for its own verb is titled "Call", so it does not read as two actions', () => {
    const titles = plan('Which meeting notes mention the shredder?', FILES).tasks[0]!.steps.map((s) => s.title);
    expect(titles).toEqual(['Call search_files', 'Call read_multiple_files for the results of step 1.1']);
  });

  test('on another server: a plain-words query, and a reader of one path runs once per path found', () => {
    const p = plan('Who attended the kickoff?', DOCS);
    expect(p.status).toBe('FEASIBLE');
    expect(stepsOf(p)).toEqual([
      { tool: 'findDocuments', params: { query: 'attended kickoff' }, depends_on: [] },
      { tool: 'readDocument', params: { path: '${step[0].data.paths.*}' }, depends_on: [0] },
    ]);
  });

  test('an action no tool does stays missing beside the search (PARTIAL)', () => {
    const p = plan('Look up the todo list and send it to Dana', FILES);
    expect(p.status).toBe('PARTIAL');
    expect(p.missing_capabilities).toEqual(['Send it to Dana']);
    expect(stepsOf(p).map((s) => s.tool)).toEqual(['search_files', 'read_multiple_files']);
  });

  test('a question about today asks for live values, which stored files do not hold: IMPOSSIBLE', () => {
    expect(plan("What is today's exchange rate from euros to US dollars?", FILES).status).toBe('IMPOSSIBLE');
  });

  test('a catalog whose search does not list paths, or that has no reader, is not searched', () => {
    const opaque = DOCS.map((t): ToolSpec =>
      t.name === 'findDocuments' ? { ...t, result: { type: 'object', properties: { hits: { type: 'number' } } } } : t,
    );
    expect(plan('Who attended the kickoff?', opaque).status).toBe('IMPOSSIBLE');
    expect(
      plan(
        'Who attended the kickoff?',
        DOCS.filter((t) => t.name !== 'readDocument'),
      ).status,
    ).toBe('IMPOSSIBLE');
  });
});
