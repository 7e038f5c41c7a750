/**
 * A goal that asks only which files a folder holds is that folder's listing (a tree when it asks for the subfolders
 * too), over any server with a tool that lists a folder: the eval's filesystem server and a storage server whose
 * tools are named otherwise.
 */
import type { JsonSchema } from '../../../src/domain/json-schema';
import { toolSpecFromJsonSchema, type ToolSpec } from '../../../src/domain/tool-spec';
import { validatePlan } from '../../../src/domain/validation';
import { analyzeGoalByRules } from '../../../src/planners/analyze/rules-analyzer';
import { coverageCritic } from '../../../src/planners/critique/rule-critics';
import { folderListing } from '../../../src/planners/folder-listing';
import { RankingPlanner } from '../../../src/planners/generate/ranking-planner';
import { FILES_CATALOG as FILES } from '../../support/files-catalog';
import { LIBRARY_CATALOG } from '../../support/library-catalog';
import { request, STAMP, stepsOf } from '../../support/planning';

function planOver(goal: string, catalog: ToolSpec[]) {
  const req = request(goal, { tool_catalog: 'files' });
  const requirements = analyzeGoalByRules({ request: req, catalog });
  return new RankingPlanner().plan({ request: req, requirements, catalog, stamp: STAMP });
}

const dataPath: JsonSchema = { type: 'string', description: 'Path of the directory', examples: ['/data'] };
const storageTool = (name: string, description: string, properties: Record<string, JsonSchema>, required: string[]) =>
  toolSpecFromJsonSchema({
    name,
    description,
    task_queue: 'storage',
    idempotent: true,
    parameters: { type: 'object', properties, required },
    path_params: 'by-name',
  });

/** A storage server: its tools are named neither list_directory nor directory_tree. */
const STORAGE: ToolSpec[] = [
  storageTool('ls', 'List the files and folders of a directory.', { dir: dataPath }, ['dir']),
  storageTool('walk', 'Show a recursive tree of the files and folders under a directory.', { dir: dataPath }, ['dir']),
  storageTool('cat', 'Print what a file holds.', { file: { type: 'string' } }, ['file']),
];

describe('a goal asking which files a folder holds lists that folder', () => {
  test('"including the ones in subfolders": the tree of the folder the path param gives as its example, FEASIBLE', () => {
    const plan = planOver('List the files in the notes folder, including the ones in subfolders', FILES);
    expect(stepsOf(plan)).toEqual([{ tool: 'directory_tree', params: { path: '/srv/notes' }, depends_on: [] }]);
    expect(plan.status).toBe('FEASIBLE');
    expect(validatePlan(plan, { catalog: FILES })).toEqual([]);
  });

  test('a folder named inside the example folder is listed there, without its subfolders', () => {
    expect(stepsOf(planOver('What files are in the meetings folder?', FILES))).toEqual([
      { tool: 'list_directory', params: { path: '/srv/notes/meetings' }, depends_on: [] },
    ]);
  });

  test('on a storage server with other names: the recursive tool for "subdirectories too", the plain one otherwise', () => {
    expect(stepsOf(planOver('Show me everything in the reports directory, subdirectories too', STORAGE))).toEqual([
      { tool: 'walk', params: { dir: '/data/reports' }, depends_on: [] },
    ]);
    expect(stepsOf(planOver('List the files in the archive folder', STORAGE))).toEqual([
      { tool: 'ls', params: { dir: '/data/archive' }, depends_on: [] },
    ]);
  });

  test('a question about what the files of a folder say is no listing; a catalog without a lister has none', () => {
    expect(folderListing('Which files in the meetings folder mention the shredder?', FILES)).toBeUndefined();
    expect(folderListing('What files are in the meetings folder?', LIBRARY_CATALOG)).toBeUndefined();
  });

  test('the coverage critic takes "subdirectories included" as asked of a tree: no critique', async () => {
    const goal = 'Give me a tree of everything in my notes, subdirectories included';
    const plan = planOver(goal, FILES);
    expect(stepsOf(plan).map((s) => s.tool)).toEqual(['directory_tree']);
    expect(plan.status).toBe('FEASIBLE');
    expect((await coverageCritic.review(plan, { request: request(goal), catalog: FILES })).critiques).toEqual([]);
  });
});
