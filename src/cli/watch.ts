/**
 * Following a run as it changes: `planner watch` and `planner start --wait` (and the demo). Progress is pushed: each
 * `waitForProgress` update returns as soon as the run records a change, so no stage is missed however short; when the
 * run already holds as many of those as it allows (PROGRESS_WAITERS_MAX, so decisions always find room), the watcher
 * reads the getProgress query every second for a while instead, then tries to wait again. When
 * the run waits for a person, a terminal (stdin and stdout both TTYs) is asked for the answer in place; anywhere
 * else the exact commands that answer it are printed and watching goes on.
 */
import { createInterface, type Interface } from 'node:readline/promises';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { isTerminal } from '../domain/stages';
import { pendingInput, type PendingInput, type PlanningState, type ProgressBatch, type ProgressEvent } from '../api';
import { readFailure } from '../api/failures';
import type { PlannerClient } from '../client';
import { CliError, type Output } from './context';
import { promptFor, type Ask } from './prompts';
import { stepTiming } from './render';
import { shellArg, terminalSafe } from './safe-text';

export interface WatchOptions {
  /** Ask for answers at this terminal (default: when stdin and stdout are TTYs). */
  interactive?: boolean;
  /** Each event as one line of JSON on stdout (`planner watch --json`) instead of text. */
  ndjson?: boolean;
  /** Where text lines go (default: out.note). */
  print?: (line: string) => void;
}

/** The stage a pending input belongs to: a question is current only while the run is in it. */
const STAGE_OF: Record<PendingInput['kind'], string> = {
  clarification: 'AWAITING_CLARIFICATION',
  approval: 'AWAITING_APPROVAL',
  budget: 'BUDGET_EXHAUSTED',
  step: 'EXECUTING',
};
const INDENT = ' '.repeat(14);
/** Refused a long-poll, a watcher reads by query this often, for this long, before it asks to wait again. */
const QUERY_POLL_MS = 1_000;
const QUERY_POLL_SPAN_MS = 15_000;
/** How often a watcher asks a closed run for its last events before it reads the final stage from the result. */
const CLOSED_QUERY_ATTEMPTS = 3;

export function isTerminalSession(): boolean {
  return Boolean(process.stdin.isTTY && process.stdout.isTTY);
}

/**
 * Follows the run until it ends (across continue-as-new: the sequence goes on in the new run) and returns its final
 * stage. A run that ended before it could be watched rethrows its failure.
 */
export async function watchRun(
  client: PlannerClient,
  workflowId: string,
  out: Output,
  options: WatchOptions = {},
): Promise<PlanningState['stage']> {
  const print = options.print ?? ((line: string) => out.note(line));
  // Beside JSON lines, notes go to stderr.
  const note = options.ndjson ? (line: string) => out.note(line) : print;
  const terminal = (options.interactive ?? isTerminalSession()) ? openTerminal(out.json) : null;
  try {
    let after = 0;
    const polling = { until: 0 };
    for (;;) {
      // Once the run has closed, an update no longer reaches it: what it recorded last is read by query.
      const batch =
        (await nextBatch(client, workflowId, after, polling)) ?? (await lastBatch(client, workflowId, after, note));
      if (batch.truncated)
        note(
          `${INDENT}(events before #${batch.events[0]?.seq ?? batch.seq} were dropped; now ${batch.stage}: planner show ${shellArg(workflowId)})`,
        );
      for (const event of batch.events) {
        if (options.ndjson) process.stdout.write(`${JSON.stringify(event)}\n`);
        else for (const line of eventLines(event, workflowId, terminal !== null)) print(line);
      }
      after = batch.seq;
      const pending = currentQuestion(batch);
      if (pending && terminal) await answerAtTerminal(client, workflowId, pending, terminal.ask, note);
      if (batch.closed && isTerminal(batch.stage)) return batch.stage;
    }
  } finally {
    terminal?.close();
  }
}

/**
 * The next events; null once the run has ended (or never started) and has none to give. Until `polling.until`, read
 * by query a second later: the run refused one more long-poll.
 */
async function nextBatch(
  client: PlannerClient,
  workflowId: string,
  after: number,
  polling: { until: number },
): Promise<ProgressBatch | null> {
  for (let attempt = 0; ; attempt++) {
    try {
      if (Date.now() >= polling.until) return await client.waitForProgress(workflowId, after);
      await new Promise((resolve) => setTimeout(resolve, QUERY_POLL_MS));
      return await client.progress(workflowId, after);
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError && readFailure(err).details.watchers_max !== undefined) {
        polling.until = Date.now() + QUERY_POLL_SPAN_MS;
        continue;
      }
      const status = await client
        .handle(workflowId)
        .describe()
        .then((d) => d.status.name)
        .catch(() => null);
      // Continue-as-new between two waits: the new run answers the next one.
      if (status === 'RUNNING' && attempt < 3 && !(err instanceof WorkflowUpdateFailedError)) continue;
      if (status !== null && status !== 'RUNNING') return null;
      throw err;
    }
  }
}

/**
 * The closed run's last events, read by query: a worker replays the closed run to answer it, which under load can
 * take longer than the query's timeout, so it is asked up to CLOSED_QUERY_ATTEMPTS times. Still without them (no
 * worker to answer, or a run refused before it had any state), its final stage comes from the result (whose failure
 * is rethrown) as the stage event that ends the batch, so a follower always ends with the run's final stage.
 */
async function lastBatch(
  client: PlannerClient,
  workflowId: string,
  after: number,
  note: (line: string) => void,
): Promise<ProgressBatch> {
  for (let attempt = 1; ; attempt++) {
    const batch = await client.progress(workflowId, after).catch(() => null);
    if (batch) return batch;
    if (attempt === CLOSED_QUERY_ATTEMPTS) break;
    await new Promise((resolve) => setTimeout(resolve, QUERY_POLL_MS));
  }
  const handle = client.handle(workflowId);
  const outcome = await handle.result();
  const closedAt = await handle.describe().then(
    (d) => d.closeTime,
    () => undefined,
  );
  note(`${INDENT}(the run's last events could not be read: planner show ${shellArg(workflowId)})`);
  const final: ProgressEvent = {
    kind: 'stage',
    stage: outcome.stage,
    plan_version: outcome.plan_version,
    plan_status: outcome.plan_status,
    // Numbered after the last event seen: the events between, if any, could not be read.
    seq: after + 1,
    at: (closedAt ?? new Date()).toISOString(),
  };
  return { events: [final], seq: after + 1, truncated: false, closed: true, stage: outcome.stage };
}

/** The question the batch leaves the run waiting on, if the run is still in its stage. */
function currentQuestion(batch: ProgressBatch): PendingInput | null {
  const last = [...batch.events].reverse().find((e) => e.kind === 'question');
  if (!last || last.kind !== 'question' || STAGE_OF[last.pending.kind] !== batch.stage) return null;
  return last.pending;
}

/** Asks until the run accepts an answer, the person leaves it for later, or the run no longer waits for it. */
async function answerAtTerminal(
  client: PlannerClient,
  workflowId: string,
  pending: PendingInput,
  ask: Ask,
  print: (line: string) => void,
): Promise<void> {
  const prompt = promptFor(pending);
  const state = await client.state(workflowId).catch(() => null);
  // What the state adds to the lines the event printed: the plan to review, for an approval.
  for (const line of prompt.show(pending, state).slice(prompt.show(pending, null).length)) print(`${INDENT}${line}`);
  for (;;) {
    try {
      const reply = await prompt.answer(pending, ask, client, workflowId);
      if (reply === null) {
        for (const command of prompt.commands(pending, workflowId)) print(`${INDENT}answer later with: ${command}`);
      } else print(`${INDENT}${terminalSafe(reply)}`);
      return;
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError)
        print(`${INDENT}refused: ${terminalSafe(readFailure(err).message)}`);
      else if (err instanceof CliError) print(`${INDENT}${terminalSafe(err.message)}`);
      else throw err;
      const state = await client.state(workflowId).catch(() => null);
      // The run moved on (an answer from elsewhere, a timeout): nothing to ask any more.
      if (state && JSON.stringify(pendingInput(state)) !== JSON.stringify(pending)) return;
    }
  }
}

function openTerminal(toStderr: boolean): { ask: Ask; close(): void } {
  const rl: Interface = createInterface({ input: process.stdin, output: toStderr ? process.stderr : process.stdout });
  let closed = false;
  const ended = new Promise<null>((resolve) => rl.once('close', () => ((closed = true), resolve(null))));
  // Ctrl-C at a prompt stops watching, as it does anywhere else.
  rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
  return {
    ask: async (question) => (closed ? null : await Promise.race([rl.question(question), ended])),
    close: () => rl.close(),
  };
}

/** An event as the lines a person reads. */
export function eventLines(event: ProgressEvent, workflowId: string, interactive: boolean): string[] {
  const time = event.at.slice(11, 23);
  switch (event.kind) {
    case 'stage':
      return [
        `${time}  ${event.stage}${event.plan_version !== null ? ` · plan v${event.plan_version} (${event.plan_status})` : ''}`,
      ];
    case 'plan':
      return [`${INDENT}plan v${event.version} (${event.status}): ${event.steps} step(s)`];
    case 'step': {
      const items = event.items !== null ? ` · ${event.items} item(s)` : '';
      const detail = event.error ? ` · ${event.error}` : event.preview ? ` · ${event.preview.slice(0, 100)}` : '';
      return [
        `${INDENT}step ${terminalSafe(event.step_id)} ${terminalSafe(event.tool ?? '')} [${event.status}]${items}${stepTiming(event.elapsed_ms, event.attempts)}${terminalSafe(detail)}`,
      ];
    }
    case 'budget':
      return [
        `${INDENT}budget: ${event.spent.calls}/${event.limit.calls} calls · ${event.spent.tokens}/${event.limit.tokens} tokens · $${event.spent.cost_usd.toFixed(4)}/$${event.limit.cost_usd.toFixed(2)}`,
      ];
    case 'question': {
      const prompt = promptFor(event.pending);
      const shown = prompt.show(event.pending, null).map((l) => `${INDENT}${l}`);
      if (interactive) return shown;
      return [...shown, ...prompt.commands(event.pending, workflowId).map((c) => `${INDENT}answer with: ${c}`)];
    }
  }
}
