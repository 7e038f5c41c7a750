/**
 * Checks the eval's gold answers: `npx tsx bench/eval-gold-check.ts [--tuning-only]`
 *
 * Loads the golden set (bench/eval-goals.json and bench/eval-goals-held-out.json), runs every gold call as the eval
 * does (bench/eval-gold.ts executeGold) against the three catalogs: the waste pack seeded for the pinned day in
 * PGlite, the workspace-context tool over bench/eval-fixtures, and the MCP filesystem server over
 * bench/eval-fixtures/notes. Prints, per goal, the rows of each gold answer entry and whether each answer_text occurs
 * in the gold calls' data, so that an answer that is empty by accident, or cut at a tool's row limit, shows.
 *
 * Exits 1 when a gold answer cannot be right: an answer_text no gold call returns, a call that returned as many rows
 * as its limit (more may exist), a feasible, partial or vague goal without an answer, an impossible one with calls.
 * An empty answer entry is reported, not refused: a few goals are meant to have none. `--tuning-only` checks and prints
 * the tuning goals alone, so that whoever tunes the planners can check new gold without seeing the held-out goals.
 */
import path from 'node:path';
import { projectRoot } from '../src/project-root';
import { createMcpPack } from '../src/tools/mcp';
import type { ToolPack } from '../src/tools/tool';
import { createWastePack } from '../src/tools/waste';
import { DEFAULT_LIMIT } from '../src/tools/waste/tools';
import { createWorkspacePack } from '../src/tools/workspace';
import { executeGold } from './eval-gold';
import { EVAL_DAY, EVAL_FIXTURES, EVAL_NOTES, loadGoldenSet, type GoldenGoal } from './eval-harness';
import { rowKey, rowsOf } from './eval-scoring';
import { loadConfig } from '../src/config';

const ROOT = projectRoot();
const GOAL_FILES = ['bench/eval-goals.json', 'bench/eval-goals-held-out.json'].map((f) => path.join(ROOT, f));
const FILES_SERVER = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

/** What is wrong with one goal's gold, and what its answer holds, as lines to print. */
function report(goal: GoldenGoal, data: readonly unknown[]): { lines: string[]; problems: string[] } {
  const gold = goal.gold!;
  const lines: string[] = [];
  const problems: string[] = [];
  if (goal.kind === 'impossible') {
    if (gold.calls.length > 0) problems.push('an impossible goal has gold calls');
    return { lines: ['nothing to answer'], problems };
  }
  if (gold.answer.length === 0 && gold.answer_text.length === 0) problems.push('no answer entry and no answer_text');
  gold.calls.forEach((call, i) => {
    const limit =
      typeof call.params.limit === 'number' ? call.params.limit : goal.catalog === 'waste' ? DEFAULT_LIMIT : undefined;
    if (limit !== undefined && rowsOf(data[i]).length >= limit)
      problems.push(`call ${i} (${call.tool}) returned ${limit} rows, its limit: more may exist`);
  });
  gold.answer.forEach((entry, n) => {
    const rows = new Set(entry.flatMap((i) => rowsOf(data[i]).map(rowKey)));
    const tools = [...new Set(entry.map((i) => gold.calls[i]!.tool))].join('+');
    lines.push(
      `answer[${n}] ${tools} (calls ${entry.join('+')}): ${rows.size} row(s)${rows.size === 0 ? ' — EMPTY' : ''}`,
    );
  });
  const texts = data.map((d) => JSON.stringify(d) ?? '');
  for (const text of gold.answer_text) {
    const found = texts.some((t) => t.includes(text));
    lines.push(`answer_text ${JSON.stringify(text)}: ${found ? 'found' : 'MISSING'}`);
    if (!found) problems.push(`answer_text ${JSON.stringify(text)} is in no gold call's data`);
  }
  return { lines, problems };
}

async function main(): Promise<void> {
  const goals = loadGoldenSet(...GOAL_FILES).filter((g) => !process.argv.includes('--tuning-only') || !g.held_out);

  const packs: ToolPack[] = [
    await createWastePack({ today: EVAL_DAY, cacheDir: loadConfig().cacheDir }),
    createWorkspacePack(EVAL_FIXTURES, { allowedRoots: [EVAL_FIXTURES] }),
    await createMcpPack('files', { command: process.execPath, args: [FILES_SERVER, EVAL_NOTES], env: {} }),
  ];
  let data: Map<string, unknown[]>;
  try {
    data = await executeGold(goals, packs, { files: EVAL_NOTES });
  } finally {
    await Promise.all(packs.map((p) => p.close()));
  }

  const problems: string[] = [];
  const counts = new Map<string, number>();
  for (const goal of goals) {
    const set = goal.held_out ? 'held-out' : 'tuning';
    for (const key of [`${set}`, `${set} ${goal.catalog}`, `${set} ${goal.kind}`])
      counts.set(key, (counts.get(key) ?? 0) + 1);
    console.log(`${set.padEnd(8)} ${goal.id} (${goal.catalog}, ${goal.kind}): ${goal.goal}`);
    if (!goal.gold) {
      problems.push(`${goal.id}: no gold`);
      continue;
    }
    const checked = report(goal, data.get(goal.id) ?? []);
    for (const line of checked.lines) console.log(`           ${line}`);
    problems.push(...checked.problems.map((p) => `${goal.id}: ${p}`));
  }
  console.log(
    `\n${[...counts]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, n]) => `${k}: ${n}`)
      .join('\n')}`,
  );
  if (problems.length > 0) {
    console.error(`\n${problems.length} problem(s):\n${problems.join('\n')}`);
    process.exitCode = 1;
  } else {
    console.log(`\nevery gold answer of the ${goals.length} goals holds`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
