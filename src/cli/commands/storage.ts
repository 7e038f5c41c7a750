/**
 * Commands on what the workers stored: `planner result` (the full data of a run's final steps, or of one step, read
 * from the content store) and `planner gc` (retention: remove what no open or recent run needs). Both use the store
 * the workers use: PostgreSQL at DATABASE_URL, else PLANNER_STORE_DIR.
 */
import type { Command } from 'commander';
import { msToNumber, type Duration } from '@temporalio/common/lib/time';
import { z } from 'zod';
import { emptyAnswerNote } from '../../api/answer';
import type { PlannerClient } from '../../client';
import { temporal } from '@temporalio/proto';
import { InvalidInputError } from '../../domain/errors';
import { openStorage, type GarbageReport, type OpenRunNeeds, type PlannerStorage } from '../../store/storage';
import { CliError, EXIT, cliConfig, output, parseArg, withClient } from '../context';
import { resultSourcesOfState, type ResultSource, type ResultStepView, type ResultView } from '../json-views';
import { renderResult } from '../render';
import { isUnansweredQuery, readRunTruth } from '../run-truth';
import { action, onRun } from './runs';

/** A retention such as 30d, 12h or 90m: at least a minute. */
export const RetentionSchema = z
  .string()
  .trim()
  .regex(/^\d+(\.\d+)?\s*(m|h|d)$/, 'must be a duration in minutes, hours or days, such as 30d, 12h or 90m')
  .transform((text) => msToNumber(text.replace(/\s+/g, '') as Duration))
  .refine((ms) => ms >= 60_000, 'must be at least 1m');

/** The steps of a run with where their data is: from the run's state (a worker answers), else its result in history. */
async function resultSources(
  client: PlannerClient,
  workflowId: string,
): Promise<{ stage: string | null; planVersion: number | null; steps: ResultSource[]; answerNote: string | null }> {
  try {
    const state = await client.state(workflowId);
    return {
      stage: state.stage,
      planVersion: state.plan?.version ?? null,
      steps: resultSourcesOfState(state),
      answerNote: emptyAnswerNote(state),
    };
  } catch (err) {
    // A closed run needs a worker to replay it for the query; without one, its result (in history) names the refs.
    if (!isUnansweredQuery(err)) throw err;
    const truth = await readRunTruth(client, workflowId).catch(() => null);
    if (!truth?.outcome) throw err; // onRun says why
    const steps = truth.outcome.steps.map((s, i): ResultSource => ({
      number: i + 1,
      id: s.id,
      tool: s.tool,
      status: s.status,
      items: s.items,
      ref: s.ref,
      final: true,
    }));
    return { stage: truth.outcome.stage, planVersion: truth.outcome.plan_version, steps, answerNote: null };
  }
}

async function readData(storage: PlannerStorage, step: ResultSource): Promise<unknown> {
  if (step.inline !== undefined) return step.inline;
  if (step.ref === null) return null;
  try {
    return await storage.store.get(step.ref);
  } catch (err) {
    throw new CliError(
      `step ${step.number} (${step.id}) stored its result under ${step.ref}, which is not in ${storage.where}`,
      EXIT.notFound,
      `read it where the workers store results: the same DATABASE_URL (several machines) or PLANNER_STORE_DIR (one machine); it may also be older than the retention (planner gc). (${(err as Error).message})`,
    );
  }
}

/** `--step` takes the step's number (1-based, as `planner result` prints it) or its id (as `planner show` does, e.g. 1.2). */
function pickSteps(steps: readonly ResultSource[], step: string | undefined): ResultSource[] {
  if (step === undefined) return steps.filter((s) => s.final);
  const found = /^\d+$/.test(step) ? steps[Number(step) - 1] : steps.find((s) => s.id === step);
  if (!found) {
    throw new CliError(
      `the run's plan has no step ${step}`,
      EXIT.notFound,
      steps.length
        ? `its steps are 1–${steps.length} (ids ${steps.map((s) => s.id).join(', ')})`
        : 'it has no plan yet',
    );
  }
  return [found];
}

export function registerStorageCommands(program: Command): void {
  program
    .command('result')
    .description(
      "the full data of a run's final steps (or of --step N), read from the store: a table for rows, JSON with --json",
    )
    .argument('<id>', 'workflow id')
    .option('--step <n>', 'only step n (its number, 1-based, or its id such as 1.2)')
    .action(
      action(async (opts, id: string) => {
        const out = output(opts);
        const step = parseArg(z.string().trim().min(1).max(100).optional(), opts.step, 'step');
        const sources = await onRun(opts, id, (client, wid) => resultSources(client, wid));
        const chosen = pickSteps(sources.steps, step);
        const storage = openStorage(cliConfig());
        let steps: ResultStepView[];
        try {
          steps = [];
          for (const s of chosen)
            steps.push({
              number: s.number,
              id: s.id,
              tool: s.tool,
              status: s.status,
              items: s.items,
              ref: s.ref,
              data: await readData(storage, s),
            });
        } finally {
          await storage.close();
        }
        const view: ResultView = {
          workflowId: id,
          stage: sources.stage,
          planVersion: sources.planVersion,
          steps,
          answer_note: sources.answerNote,
        };
        if (out.json) out.data(view);
        else out.line(renderResult(view).join('\n'));
      }),
    );

  program
    .command('gc')
    .description(
      'remove stored values and ledger entries last written before the retention that no run within it wrote',
    )
    .requiredOption('--older-than <duration>', 'the retention, e.g. 30d (days), 12h, 90m')
    .action(
      action(async (opts) => {
        const out = output(opts);
        const retentionMs = parseArg(RetentionSchema, opts.olderThan, '--older-than');
        const storage = openStorage(cliConfig());
        try {
          const { cutoff, report } = await withClient(opts, (client) => collectGarbage(storage, retentionMs, client));
          if (out.json) out.data({ cutoff: cutoff.toISOString(), storage: storage.kind, ...report });
          else
            out.line(
              `Removed ${report.values} value(s) and ${report.ledgerEntries} ledger entr${report.ledgerEntries === 1 ? 'y' : 'ies'} last written before ${cutoff.toISOString()} from ${storage.where}`,
            );
        } finally {
          await storage.close();
        }
      }),
    );
}

const STORED_REFS = /sha256:[0-9a-f]{64}/g;

/**
 * What the planning runs open in the client's namespace need (Temporal visibility lists them): their workflow ids,
 * every value their history names (their state's refs among them: a state is built from activity results, and a
 * continued run starts from it), and the values those name in turn (archived plan versions' pages). Read without a
 * worker, so a run nobody serves still keeps its values.
 */
export async function openRunNeeds(client: PlannerClient, storage: PlannerStorage): Promise<OpenRunNeeds> {
  const workflowIds = new Set<string>();
  for await (const run of client.client.workflow.list({
    query: `WorkflowType = 'planningWorkflow' AND ExecutionStatus = 'Running'`,
  }))
    workflowIds.add(run.workflowId);
  const refs = new Set<string>();
  const pending: string[] = [];
  const reach = (text: string) => {
    for (const [ref] of text.matchAll(STORED_REFS)) {
      if (refs.has(ref)) continue;
      refs.add(ref);
      pending.push(ref);
    }
  };
  // JSON payloads are UTF-8 inside the encoded history, so the refs are found in its bytes.
  for (const workflowId of workflowIds)
    reach(
      Buffer.from(temporal.api.history.v1.History.encode(await client.history(workflowId)).finish()).toString('latin1'),
    );
  // A value already gone names nothing; any other error (the store is down) stops the collection.
  const valueOf = (ref: string) =>
    storage.store.get(ref).catch((err: unknown) => (err instanceof InvalidInputError ? null : Promise.reject(err)));
  for (let ref = pending.pop(); ref !== undefined; ref = pending.pop()) reach(JSON.stringify(await valueOf(ref)));
  return { workflowIds, refs };
}

/** One garbage collection with `retentionMs` (also run periodically by `planner worker --gc-older-than`). */
export async function collectGarbage(
  storage: PlannerStorage,
  retentionMs: number,
  client: PlannerClient,
): Promise<{ cutoff: Date; report: GarbageReport }> {
  const cutoff = new Date(Date.now() - retentionMs);
  return { cutoff, report: await storage.collectGarbage(cutoff, await openRunNeeds(client, storage)) };
}
