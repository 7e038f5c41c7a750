/** A step does one thing: a compound title is a validation issue (COMPOUND_STEP, so PLAN-003), on any catalog. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { compoundActionReason } from '../../../src/domain/atomicity';
import { planIssues } from '../../../src/domain/validation';
import { flattenSteps } from '../../../src/domain/plan';
import { WASTE_CATALOG } from '../../../src/tools/waste/catalog';
import { planOfSteps, rankingPlan } from '../../support/planning';

describe('compound steps', () => {
  // The seeds' own counter-examples (quorum-planner-plan: "solve and substitute", "differentiate then integrate";
  // sequence indicators "first, then, finally"), and more of the same shapes.
  test.each([
    'Differentiate then integrate',
    'Solve and substitute',
    'Solve and substitute the equation',
    'First compute x, finally report it',
    'First read the file, then write the summary',
    'Fetch the shipments and then email the carriers',
    'Query shipments, afterwards delete them',
    'List the directory, after that read each file',
    'Read the report followed by a summary for the team',
    'Read, parse and store the configuration',
    'List shipments and email the list to compliance',
    'Compute the totals, report them',
    'Query shipments before deleting them',
  ])('"%s" is compound', (title) => {
    expect(compoundActionReason(title)).not.toBeNull();
  });

  // One action whose object has "and" in it, or sequencing words used otherwise.
  test.each([
    'List shipments and their contaminants',
    'Query shipments and contaminants',
    'Get contaminated shipments from last week and this week',
    'Read a.txt and b.txt',
    'Search files and directories matching *.ts',
    'Create the directory and its parents',
    'Compare the current and previous versions',
    'List pickups for next week',
    'Query facilities in Hannover and Bremen',
    'Call contaminants-detected for the results of step 1.1 and step 1.2',
    'Shipments and contaminants of last month',
    'Query inspections after 2026-06-01',
    'Summarize the shipment risks',
  ])('"%s" is one action', (title) => {
    expect(compoundActionReason(title)).toBeNull();
  });

  test('a compound step fails validation with COMPOUND_STEP, naming the step and how to split it', () => {
    const plan = planOfSteps('Get shipments', [
      { tool: 'shipments', title: 'Query shipments' },
      { tool: 'shipments', title: 'Differentiate then integrate' },
    ]);
    const issues = planIssues(plan, { catalog: WASTE_CATALOG });
    expect(issues).toEqual([
      expect.objectContaining({
        code: 'COMPOUND_STEP',
        step_index: 1,
        message: expect.stringContaining('"then" sequences two actions'),
        hint: expect.stringContaining('one step per action'),
      }),
    ]);
  });

  test('the ranking planner titles no step of the demo goals as compound', () => {
    const golden = JSON.parse(readFileSync(path.join(__dirname, '../../../bench/eval-goals.json'), 'utf8')) as {
      goals: { goal: string; catalog?: string }[];
    };
    const wasteGoals = golden.goals.filter((g) => (g.catalog ?? 'waste') === 'waste').map((g) => g.goal);
    expect(wasteGoals.length).toBeGreaterThan(10);
    const titles = wasteGoals.flatMap((goal) => flattenSteps(rankingPlan(goal)).map((s) => s.title));
    expect(titles.filter((t) => compoundActionReason(t) !== null)).toEqual([]);
  });

  test("the ranking planner's titles for every tool of the demo and the MCP filesystem catalogs are one action", () => {
    // The tools of @modelcontextprotocol/server-filesystem, the eval's `files` catalog.
    const filesystem = [
      'create_directory',
      'directory_tree',
      'edit_file',
      'get_file_info',
      'list_allowed_directories',
      'list_directory',
      'list_directory_with_sizes',
      'move_file',
      'read_file',
      'read_media_file',
      'read_multiple_files',
      'read_text_file',
      'search_files',
      'write_file',
    ];
    const titles = [...WASTE_CATALOG.map((t) => t.name), ...filesystem].flatMap((tool) => [
      `Query ${tool}`,
      `Call ${tool}`,
      `Call ${tool} for the results of step 1.1 and step 1.2`,
    ]);
    expect(titles.filter((t) => compoundActionReason(t) !== null)).toEqual([]);
  });
});
