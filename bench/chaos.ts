/**
 * Chaos drill: faults lose nothing.
 *   npm run chaos [-- --plans 50 --kills 6 --seed 7]
 *
 * 50 plans, each planned by the LLM planner against a chat-completions server on 127.0.0.1
 * (test/support/scripted-llm-server.ts) that answers 20% of calls with a 500 or a timeout (PLANNER_LLM_TIMEOUT_MS
 * is 3 s, the injected timeouts hold 6 s), and each running three side-effecting, slow `record-note` steps (two in
 * parallel, then one after both). The workers run in a child process that is SIGKILLed at random moments and
 * restarted each time; the dev server is restarted once on the same --db-filename and port.
 *
 * At the end, for every plan: COMPLETED; every side effect happened exactly once (the notes file has one line per
 * step idempotency key, no duplicates, none missing); budget calls = its settled calls, i.e. the LLM replies a
 * worker received (each is written to the ledger before the activity goes on) + its tool calls, and never more
 * LLM calls than the server answered; plan versions are 1..n without a gap. A reply the server wrote to the socket
 * of a worker killed before it read it is answered but not settled (`llm_lost_in_flight`); there can be no more of
 * those than kills. Prints one line of totals and exits non-zero on any loss.
 *
 * A worker killed during a planning activity is noticed within the activity's heartbeat timeout (10 s).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, promises as fs, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import type { DevServer } from '../src/dev/temporal-server';
import { seededRandom } from '../src/seeded-random';
import { readNotes } from '../test/fixtures/demo-pack';
import { ledgerDir } from '../src/store/idempotency';
import { bundleWorkflows } from '../src/worker';
import { getStateQuery, type PlanningOutcome, type PlanningState } from '../src/api';
import { planningWorkflow } from '../src/workflows';
import {
  plannerReplies,
  startScriptedLlmServer,
  type ChatRequestBody,
  type ScriptedLlmServer,
} from '../test/support/scripted-llm-server';
import { killProcess, spawnFixtureWorker, startDevServerIn } from '../test/support/temporal';

const TASK_QUEUE = 'chaos';

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const n = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} takes a whole number`);
  return n;
}

/** Every key in a FileIdempotencyLedger folder (one JSON file per key, `{ key, value }`). */
async function readLedgerKeys(dir: string): Promise<string[]> {
  const keys: string[] = [];
  for (const sub of await fs.readdir(dir).catch(() => [] as string[])) {
    for (const file of await fs.readdir(path.join(dir, sub)).catch(() => [] as string[])) {
      if (file.endsWith('.json'))
        keys.push((JSON.parse(await fs.readFile(path.join(dir, sub, file), 'utf8')) as { key: string }).key);
    }
  }
  return keys;
}

const marker = (i: number) => `[plan-${String(i).padStart(3, '0')}]`;
const MARKER = /\[plan-(\d{3})\]/;

/** The scripted LLM: analysis, a 3-step record-note plan with per-plan delays, and an empty pre-mortem. */
const llmReply = plannerReplies({
  steps: ['Record two notes', 'Record a closing note'],
  capabilities: ['record-note'],
  intent: 'command',
  plan: (body: ChatRequestBody): string => {
    const text = body.messages.map((m) => m.content).join('\n');
    const n = Number(MARKER.exec(text)?.[1] ?? 0);
    const random = seededRandom(1000 + n);
    const ms = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo));
    const step = (id: string, title: string, depends_on: number[]) => ({
      id,
      title,
      action: 'tool_call',
      tool: 'record-note',
      params: { text: `${marker(n)} ${title}`, delay_ms: ms(300, 2500), delay_after_ms: ms(0, 1500) },
      depends_on,
      parallel: depends_on.length === 0,
    });
    return JSON.stringify({
      status: 'FEASIBLE',
      tasks: [
        {
          id: '1',
          title: 'Record the notes',
          steps: [step('1.1', 'first note', []), step('1.2', 'second note', []), step('1.3', 'closing note', [0, 1])],
        },
      ],
      complexity: 3,
      estimate: { cost_usd: 0, tokens: 0, calls: 3, duration_ms: 8000 },
    });
  },
});

async function main() {
  const plans = flag('plans', 50);
  const kills = Math.max(5, flag('kills', 6));
  const seed = flag('seed', 7);
  const random = seededRandom(seed);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chaos-'));
  const notesDir = path.join(dir, 'notes');
  const t0 = performance.now();
  const elapsed = () => (performance.now() - t0) / 1000;
  const log = (line: string) => console.log(`[${elapsed().toFixed(1).padStart(6)} s] ${line}`);

  let server: DevServer | undefined;
  let llm: ScriptedLlmServer | undefined;
  let client: Client | undefined;
  let worker: ChildProcess | undefined;
  const cleanup = async () => {
    if (worker) await killProcess(worker, 'SIGKILL');
    await client?.connection.close().catch(() => undefined);
    await llm?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  const onSignal = () => void cleanup().finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    server = await startDevServerIn(dir);
    const { code } = await bundleWorkflows();
    const bundle = path.join(dir, 'bundle.js');
    writeFileSync(bundle, code);
    llm = await startScriptedLlmServer({
      reply: llmReply,
      faults: { rate: 0.2, seed, kinds: ['error', 'timeout'], status: 500, timeout_ms: 6_000 },
    });
    const env = {
      TEMPORAL_ADDRESS: server.address,
      PLANNER_TASK_QUEUE: TASK_QUEUE,
      PLANNER_TEST_BUNDLE: bundle,
      NOTES_DIR: notesDir,
      PLANNER_STORE_DIR: path.join(dir, 'store'),
      OPENAI_BASE_URL: llm.baseURL,
      OPENAI_API_KEY: 'chaos-key',
      PLANNER_MODEL: 'gpt-4o-mini',
      PLANNER_LLM_TIMEOUT_MS: '3000',
    };
    // The same worker process the crash-survival test kills: planner + the demo record-note tool.
    const spawnWorker = () => spawnFixtureWorker('planner-worker-process.ts', env);
    worker = await spawnWorker();
    client = new Client({ connection: await Connection.connect({ address: server.address }) });
    const c = client;

    // Plans start over the first ~15 s, so kills land in every phase: analysis, planning, critique, steps.
    const ids = Array.from({ length: plans }, (_, i) => `chaos-${String(i).padStart(3, '0')}`);
    const starting = (async () => {
      for (let i = 0; i < plans; i++) {
        await c.workflow.start(planningWorkflow, {
          taskQueue: TASK_QUEUE,
          workflowId: ids[i]!,
          args: [
            {
              request: { goal: `Record the chaos notes of plan ${marker(i)}`, tool_catalog: 'demo', planner: 'llm' },
              options: { step_heartbeat_ms: 2_000 },
            },
          ],
        });
        await new Promise((r) => setTimeout(r, 300));
      }
    })();

    // The chaos: `kills` SIGKILLs at random moments in 3–45 s, and one server restart between two of them.
    const killTimes = Array.from({ length: kills }, () => 3 + random() * 42).sort((a, b) => a - b);
    const restartAt = 10 + random() * 25;
    const events = [
      ...killTimes.map((at) => ({ at, kind: 'kill' as const })),
      { at: restartAt, kind: 'restart' as const },
    ].sort((a, b) => a.at - b.at);
    let killed = 0;
    for (const event of events) {
      const wait = event.at - elapsed();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait * 1000));
      if (event.kind === 'kill') {
        await killProcess(worker!, 'SIGKILL');
        killed += 1;
        log(`SIGKILL worker #${killed}`);
        await new Promise((r) => setTimeout(r, random() * 1500));
        worker = await spawnWorker();
        log('worker restarted');
      } else {
        log('stopping the dev server');
        await server.stop();
        server = await startDevServerIn(dir, server.port);
        log(`dev server restarted on ${server.address} (same database)`);
      }
    }
    await starting;

    // Wait for every run to close (tolerating the restart's connection errors), at most ~4.5 min after the chaos.
    const deadline = Date.now() + 270_000;
    let open = ids;
    while (open.length > 0 && Date.now() < deadline) {
      const statuses = await Promise.all(
        open.map((id) =>
          c.workflow
            .getHandle(id)
            .describe()
            .then(
              (d) => d.status.name,
              () => 'UNKNOWN',
            ),
        ),
      );
      open = open.filter((_, i) => statuses[i] === 'RUNNING' || statuses[i] === 'UNKNOWN');
      if (open.length > 0) await new Promise((r) => setTimeout(r, 2_000));
    }
    log(`${plans - open.length}/${plans} runs closed`);

    // ---- the checks ----
    const problems: string[] = [];
    const notes = await readNotes(notesDir);
    const noteKeys = new Map<string, number>();
    for (const n of notes) noteKeys.set(n.key, (noteKeys.get(n.key) ?? 0) + 1);
    const duplicates = [...noteKeys].filter(([, count]) => count > 1);
    if (duplicates.length > 0)
      problems.push(
        `${duplicates.length} side effect(s) happened more than once: ${duplicates
          .slice(0, 3)
          .map(([k, n]) => `${k} ×${n}`)
          .join(', ')}`,
      );

    const okReplies = new Map<number, number>();
    let unattributed = 0;
    for (const r of llm.requests) {
      if (r.outcome !== 'reply') continue;
      const m = MARKER.exec(r.body.messages.map((x) => x.content).join('\n'));
      if (!m) unattributed += 1;
      else okReplies.set(Number(m[1]), (okReplies.get(Number(m[1])) ?? 0) + 1);
    }
    if (unattributed > 0) problems.push(`${unattributed} successful LLM call(s) could not be attributed to a plan`);

    // A call is settled when a worker received its reply: the planning activities record each one in the ledger
    // before going on. A reply the server wrote to the socket of a worker SIGKILLed before reading it is answered
    // but not settled (the retry asks again); those are counted apart, never charged, and never more than the kills.
    const received = new Map<string, number>();
    for (const value of await readLedgerKeys(ledgerDir(path.join(dir, 'store')))) {
      const m = /^llm-call:([^:]+):/.exec(value);
      if (m) received.set(m[1]!, (received.get(m[1]!) ?? 0) + 1);
    }
    let lostInFlight = 0;

    const stepKeys = new Set<string>();
    let completed = 0;
    let steps = 0;
    let toolCalls = 0;
    let budgetCalls = 0;
    let versionsTotal = 0;
    let replans = 0;
    await Promise.all(
      ids.map(async (id, i) => {
        const handle = c.workflow.getHandle(id);
        let outcome: PlanningOutcome;
        let state: PlanningState;
        try {
          outcome = (await handle.result()) as PlanningOutcome;
          state = await handle.query(getStateQuery);
        } catch (err) {
          problems.push(`${id}: ${(err as Error).message.split('\n')[0]}`);
          return;
        }
        if (outcome.stage !== 'COMPLETED') problems.push(`${id}: ${outcome.stage} ${outcome.failure ?? ''}`);
        else completed += 1;
        const versions = state.versions.map((v) => v.version);
        versionsTotal += versions.length;
        replans += state.replans;
        if (versions.join(',') !== versions.map((_, k) => k + 1).join(','))
          problems.push(`${id}: plan versions ${versions.join(',')} are not 1..n`);
        const done = Object.values(state.completed_steps);
        toolCalls += done.length;
        for (const s of state.steps) if (s.status === 'COMPLETED') steps += 1;
        for (const d of done) {
          const key = d.result.idempotency_key;
          stepKeys.add(key);
          if (!noteKeys.has(key))
            problems.push(`${id}: the effect of a completed step (${key}) is missing from the notes`);
        }
        const settledLlm = received.get(id) ?? 0;
        const answered = okReplies.get(i) ?? 0;
        const expected = settledLlm + done.length;
        budgetCalls += state.budget.spent.calls;
        lostInFlight += answered - settledLlm;
        if (state.budget.spent.calls !== expected || settledLlm > answered) {
          const charges = state.audit
            .filter((a) => a.kind === 'budget' || a.kind === 'plan')
            .map((a) => `${a.at.slice(11, 19)} ${a.message}`);
          problems.push(
            `${id}: budget charged ${state.budget.spent.calls} call(s), settled calls ${expected} (${settledLlm} LLM received of ${answered} answered + ${done.length} tool)\n      ${charges.join('\n      ')}`,
          );
        }
      }),
    );
    const orphans = [...noteKeys.keys()].filter((k) => !stepKeys.has(k));
    if (lostInFlight > killed)
      problems.push(
        `${lostInFlight} answered LLM replies never reached a worker, more than the ${killed} kills explain`,
      );
    if (orphans.length > 0)
      problems.push(`${orphans.length} note(s) belong to no completed step: ${orphans.slice(0, 3).join(', ')}`);

    const outcomes = llm.requests.reduce<Record<string, number>>(
      (acc, r) => ({ ...acc, [r.outcome]: (acc[r.outcome] ?? 0) + 1 }),
      {},
    );
    console.log(
      `chaos plans=${plans} completed=${completed} lost=${plans - completed} steps=${steps} notes=${notes.length} duplicate_effects=${duplicates.length} ` +
        `missing_effects=${stepKeys.size - [...stepKeys].filter((k) => noteKeys.has(k)).length} llm_calls=${llm.requests.length} llm_ok=${outcomes.reply ?? 0} ` +
        `llm_received=${[...received.values()].reduce((a, b) => a + b, 0)} llm_lost_in_flight=${lostInFlight} llm_500=${outcomes['fault-error'] ?? 0} llm_timeouts=${outcomes['fault-timeout'] ?? 0} tool_calls=${toolCalls} budget_calls=${budgetCalls} ` +
        `budget_mismatches=${problems.filter((p) => p.includes('budget charged')).length} plan_versions=${versionsTotal} replans=${replans} ` +
        `worker_kills=${killed} server_restarts=1 seconds=${elapsed().toFixed(0)} problems=${problems.length}`,
    );
    for (const p of problems.slice(0, 20)) console.error(`  LOSS: ${p}`);
    if (problems.length > 0) process.exitCode = 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await cleanup();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
