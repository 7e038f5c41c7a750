/**
 * How soon `planner watch` shows a change, and what watching costs in history.
 *   npm run bench:watch [-- <runs>]
 * Runs on bench/local-planner.ts (its own dev server, the planner + waste tool workers in-process). Each
 * run (ranking planner, approval required) is started, a `planner watch <id> --json` process (the real CLI, one line
 * of JSON per event) attaches while the run awaits approval, and the run is approved. For every event after the
 * approval, the delay is from the event's workflow time (the start of the workflow task that made the change) to the
 * moment its line arrives from the watch process. History bytes per event: the same runs without a watcher are the
 * baseline; (watched history bytes − unwatched) / events delivered. Prints both and writes
 * bench/watch-latency-results.json.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { approveUpdate, getStateQuery, type ProgressEvent } from '../src/api';
import { projectRoot } from '../src/project-root';
import { planningWorkflow } from '../src/workflows';
import { mean, percentile } from './figures';
import { withLocalPlanner } from './local-planner';

const GOAL = 'Get contaminated shipments from last week and show me the contaminant details';
const TASK_QUEUE = 'bench-watch';
const ROOT = projectRoot();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function historyBytes(handle: WorkflowHandle): Promise<number> {
  return temporal.api.history.v1.History.encode(await handle.fetchHistory()).finish().length;
}

async function main() {
  const runs = Number(process.argv[2] ?? 8);
  await withLocalPlanner(TASK_QUEUE, async ({ server, workers, client }) => {
    let id = 0;

    /** A run awaiting approval, then approved; with a watcher attached in between when `watch`. */
    const oneRun = async (watch: boolean) => {
      const handle = await client.workflow.start(planningWorkflow, {
        taskQueue: TASK_QUEUE,
        workflowId: `watch-${id++}`,
        args: [{ request: { goal: GOAL, planner: 'ranking' }, options: { require_approval: true } }],
      });
      while ((await handle.query(getStateQuery)).stage !== 'AWAITING_APPROVAL') await sleep(50);
      const lines: { event: ProgressEvent; receivedAt: number }[] = [];
      let exited: Promise<void> = Promise.resolve();
      if (watch) {
        const child = spawn(
          process.execPath,
          [path.join(ROOT, 'bin/planner.js'), 'watch', handle.workflowId, '--json'],
          {
            cwd: ROOT,
            env: { ...process.env, TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: 'default' },
            stdio: ['ignore', 'pipe', 'inherit'],
          },
        );
        let buffered = '';
        child.stdout.on('data', (chunk: Buffer) => {
          const receivedAt = Date.now();
          buffered += chunk.toString();
          const complete = buffered.split('\n');
          buffered = complete.pop()!;
          for (const line of complete)
            if (line.trim()) lines.push({ event: JSON.parse(line) as ProgressEvent, receivedAt });
        });
        exited = new Promise((resolve) => child.once('close', () => resolve()));
        while (!lines.some((l) => l.event.kind === 'question')) await sleep(20);
      }
      const approvedAt = Date.now();
      await handle.executeUpdate(approveUpdate, { args: [{ plan_version: 1 }] });
      if ((await handle.result()).stage !== 'COMPLETED') throw new Error('a bench run did not complete');
      await exited;
      const live = lines.filter((l) => Date.parse(l.event.at) >= approvedAt - 5);
      return {
        bytes: await historyBytes(handle),
        delivered: lines.length,
        delays: live.map((l) => ({ kind: l.event.kind, ms: l.receivedAt - Date.parse(l.event.at) })),
      };
    };

    const summary = await workers.runUntil(
      (async () => {
        await oneRun(false); // warm-up: JIT, caches, the server's first workflows
        const unwatched: number[] = [];
        const watched: Awaited<ReturnType<typeof oneRun>>[] = [];
        for (let i = 0; i < runs; i++) {
          unwatched.push((await oneRun(false)).bytes);
          watched.push(await oneRun(true));
        }
        const delays = watched.flatMap((w) => w.delays.map((d) => d.ms)).sort((a, b) => a - b);
        const kinds = [...new Set(watched.flatMap((w) => w.delays.map((d) => d.kind)))];
        const byKind = Object.fromEntries(
          kinds.map((k) => [
            k,
            percentile(
              watched.flatMap((w) => w.delays.filter((d) => d.kind === k).map((d) => d.ms)).sort((a, b) => a - b),
              95,
            ),
          ]),
        );
        const extraBytes = mean(watched.map((w) => w.bytes)) - mean(unwatched);
        const delivered = mean(watched.map((w) => w.delivered));
        return {
          runs,
          live_events_measured: delays.length,
          p50_delay_ms: percentile(delays, 50),
          p95_delay_ms: percentile(delays, 95),
          max_delay_ms: delays[delays.length - 1],
          p95_delay_ms_by_kind: byKind,
          history_bytes_unwatched_mean: Math.round(mean(unwatched)),
          history_bytes_watched_mean: Math.round(mean(watched.map((w) => w.bytes))),
          events_delivered_per_run: delivered,
          history_bytes_per_event: Math.round(extraBytes / delivered),
          cpus: os.cpus().length,
          load_average_1m_at_end: Number(os.loadavg()[0]!.toFixed(1)),
          node: process.version,
          at: new Date().toISOString(),
        };
      })(),
    );
    console.log(
      `watch runs=${runs} events=${summary.live_events_measured} p50=${summary.p50_delay_ms}ms p95=${summary.p95_delay_ms}ms max=${summary.max_delay_ms}ms ` +
        `history: ${summary.history_bytes_unwatched_mean} B unwatched, ${summary.history_bytes_watched_mean} B watched, ${summary.history_bytes_per_event} B per event delivered`,
    );
    writeFileSync(path.join(ROOT, 'bench', 'watch-latency-results.json'), `${JSON.stringify(summary, null, 2)}\n`);
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
