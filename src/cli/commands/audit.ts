/**
 * `planner audit`: the decisions of many runs, by kind (approval, rejection, budget, re-plan, edit, answer). Runs come
 * from Temporal visibility (planning runs, newest first, on a task queue, open since a time); each run's decisions from
 * its own audit (the getState query) or, when no worker answers, from its event history.
 */
import type { Command } from 'commander';
import { z } from 'zod';
import { output, parseArg, withClient } from '../context';
import { DECISION_KINDS, decisionsOfRun, type DecisionView } from '../decisions';
import { action } from './runs';

/** `--since`: an ISO date or time, or an age such as 30m, 12h, 7d. */
const SinceSchema = z
  .string()
  .trim()
  .max(100)
  .transform((text, ctx) => {
    const age = /^(\d{1,6})([mhd])$/.exec(text);
    const at = age
      ? Date.now() - Number(age[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[age[2] as 'm' | 'h' | 'd']
      : Date.parse(text);
    if (Number.isNaN(at)) {
      ctx.addIssue({
        code: 'custom',
        message: 'give an ISO date or time (2026-11-27, 2026-11-27T08:00Z) or an age (12h, 7d)',
      });
      return z.NEVER;
    }
    return new Date(at);
  });

const AuditFlagsSchema = z.object({
  kind: z.array(z.enum(DECISION_KINDS)).optional(),
  since: SinceSchema.optional(),
  taskQueue: z.string().trim().min(1).max(1000).optional(),
  limit: z.coerce.number().int().min(1).max(10_000).default(100),
  runs: z.coerce.number().int().min(1).max(10_000).default(200),
});

export function registerAuditCommand(program: Command): void {
  program
    .command('audit')
    .description('decisions across runs, newest first: approvals, rejections, budget, re-plans, edits, answers')
    .option('--kind <kind...>', `only these kinds (${DECISION_KINDS.join(', ')})`)
    .option('--since <time>', 'only decisions at or after an ISO date or time, or an age (12h, 7d)')
    .option('--task-queue <queue>', "only runs on this task queue (a planner worker's --task-queue)")
    .option('--limit <n>', 'at most n decisions (default 100)')
    .option('--runs <n>', 'read the n newest runs by start time (default 200)')
    .action(
      action(async (opts) => {
        const out = output(opts);
        const flags = parseArg(
          AuditFlagsSchema,
          {
            kind: opts.kind,
            since: opts.since,
            taskQueue: opts.taskQueue,
            limit: opts.limit,
            runs: opts.runs,
          },
          'option',
          `kinds are ${DECISION_KINDS.join(', ')}; --since takes an ISO date or time, or an age such as 12h or 7d`,
        );
        const { decisions, runs } = await withClient(opts, async (client) => {
          const runs = await client.list({
            limit: flags.runs,
            ...(flags.taskQueue ? { taskQueue: flags.taskQueue } : {}),
            ...(flags.since ? { activeSince: flags.since } : {}),
          });
          const decisions: DecisionView[] = [];
          for (const run of runs) decisions.push(...(await decisionsOfRun(client, run.workflowId)));
          return { decisions, runs: runs.length };
        });
        const since = flags.since?.toISOString();
        const selected = decisions
          .filter((d) => (!flags.kind || flags.kind.includes(d.kind)) && (!since || d.at >= since))
          .sort((a, b) => b.at.localeCompare(a.at) || a.workflowId.localeCompare(b.workflowId))
          .slice(0, flags.limit);
        if (out.json) out.data({ runsRead: runs, decisions: selected });
        else out.line(renderDecisions(selected, runs).join('\n'));
      }),
    );
}

/** One line a decision (printed through terminalSafe, as all CLI output); `·` marks one read from Temporal's history. */
function renderDecisions(decisions: readonly DecisionView[], runs: number): string[] {
  if (decisions.length === 0) return [`No decisions found in ${runs} run(s).`];
  const idWidth = Math.max(...decisions.map((d) => d.workflowId.length));
  return [
    `${decisions.length} decision(s) in ${runs} run(s), newest first:`,
    ...decisions.map(
      (d) =>
        `${d.at.replace(/\.\d+Z$/, 'Z')}  ${d.kind.padEnd(9)}  ${d.workflowId.padEnd(idWidth)}  ${d.by}: ${d.source === 'history' ? '· ' : ''}${d.message}`,
    ),
  ];
}
