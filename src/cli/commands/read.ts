/** Commands that read runs: show (plan tree, versions, diff), list (visibility), history (decision audit). */
import type { Command } from 'commander';
import { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { diffPlans } from '../../domain/diff';
import { STAGES } from '../../domain/stages';
import type { PlanningState } from '../../api';
import { versionOf as readVersion } from '../../api/versions';
import { openStorage } from '../../store/storage';
import { CliError, EXIT, cliConfig, output, parseArg, withClient } from '../context';
import { choiceOption } from '../completion';
import {
  auditEntryView,
  closedRunView,
  diffView,
  runView,
  stateView,
  versionView,
  type HistoryEntryView,
} from '../json-views';
import { renderClosedRun, renderDiff, renderHistory, renderRuns, renderState } from '../render';
import {
  endingOf,
  isUnansweredQuery,
  isUnregisteredQuery,
  readRunTruth,
  warnIfNoWorker,
  whyNoState,
  type RunTruth,
} from '../run-truth';
import { shellArg } from '../safe-text';
import { action, onRun } from './runs';

const VersionNumber = z.coerce.number().int().min(1);

/** Plan version n, inline or archived in the content store the workers share (DATABASE_URL, else PLANNER_STORE_DIR). */
async function versionOf(state: PlanningState, n: number) {
  const storage = openStorage(cliConfig());
  const version = await readVersion(state, n, storage.store).finally(() => storage.close());
  if (!version) {
    const known = [...(state.archived_versions ?? []).map((v) => v.version), ...state.versions.map((v) => v.version)];
    throw new CliError(
      `run ${state.workflow_id} has no plan version ${n}`,
      EXIT.notFound,
      known.length ? `its versions are ${known.map((v) => `v${v}`).join(', ')}` : 'it has no plan yet',
    );
  }
  return version;
}

const EventType = temporal.api.enums.v1.EventType;

/**
 * The decision-relevant events of a run's history: activities (with their summaries, failures and timeouts), messages,
 * workflow-task failures and timeouts, and the ending (with a termination's reason).
 */
function historyEntries(history: temporal.api.history.v1.IHistory): HistoryEntryView[] {
  const entries: HistoryEntryView[] = [];
  const scheduled = new Map<string, string>();
  const summaryOf = (e: temporal.api.history.v1.IHistoryEvent): string => {
    const data = e.userMetadata?.summary?.data;
    if (!data) return '';
    try {
      const text = JSON.parse(Buffer.from(data).toString('utf8')) as unknown;
      return typeof text === 'string' ? text : '';
    } catch {
      return '';
    }
  };
  for (const e of history.events ?? []) {
    const at = e.eventTime
      ? new Date(Number(e.eventTime.seconds ?? 0) * 1000 + Math.floor((e.eventTime.nanos ?? 0) / 1e6)).toISOString()
      : '';
    const id = String(e.eventId ?? '');
    const push = (kind: string, message: string, by?: string | null) =>
      entries.push({ at, source: 'history', kind, message, ...(by ? { by } : {}) });
    switch (e.eventType) {
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED: {
        const a = e.activityTaskScheduledEventAttributes!;
        const name = `${a.activityType?.name ?? 'activity'}${summaryOf(e) ? ` (${summaryOf(e)})` : ''}`;
        scheduled.set(id, name);
        push('activity', `${name} scheduled on ${a.taskQueue?.name ?? '?'}`);
        break;
      }
      case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
        push(
          'activity',
          `${scheduled.get(String(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? '')) ?? 'activity'} completed`,
        );
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED:
        push(
          'activity',
          `${scheduled.get(String(e.activityTaskFailedEventAttributes?.scheduledEventId ?? '')) ?? 'activity'} failed: ${e.activityTaskFailedEventAttributes?.failure?.message ?? ''}`,
        );
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT:
        push(
          'activity',
          `${scheduled.get(String(e.activityTaskTimedOutEventAttributes?.scheduledEventId ?? '')) ?? 'activity'} timed out: ${e.activityTaskTimedOutEventAttributes?.failure?.message ?? ''}`,
        );
        break;
      case EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED: {
        const a = e.workflowTaskFailedEventAttributes;
        const cause = a?.cause ? temporal.api.enums.v1.WorkflowTaskFailedCause[a.cause] : undefined;
        push(
          'workflow',
          `workflow task failed${cause ? ` (${cause.replace(/^WORKFLOW_TASK_FAILED_CAUSE_/, '')})` : ''}: ${a?.failure?.message ?? ''}`,
        );
        break;
      }
      case EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT:
        push('workflow', 'workflow task timed out (the worker did not finish it in time)');
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED: {
        const a = e.workflowExecutionTerminatedEventAttributes;
        push('workflow', `terminated: ${a?.reason || '(no reason given)'}${a?.identity ? ` (by ${a.identity})` : ''}`);
        break;
      }
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT:
        push('workflow', 'timed out (its workflow execution timeout passed)');
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED: {
        const request = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
        push('message', `update ${request?.input?.name ?? ''} accepted`, request?.meta?.identity); // Temporal's record of the sender
        break;
      }
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
        push('message', `signal ${e.workflowExecutionSignaledEventAttributes?.signalName ?? ''} received`);
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED:
        push(
          'message',
          `cancellation requested${e.workflowExecutionCancelRequestedEventAttributes?.cause ? `: ${e.workflowExecutionCancelRequestedEventAttributes.cause}` : ''}`,
        );
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
        push('workflow', 'started', e.workflowExecutionStartedEventAttributes?.identity);
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
        push('workflow', 'completed');
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED:
        push('workflow', `failed: ${e.workflowExecutionFailedEventAttributes?.failure?.message ?? ''}`);
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED:
        push('workflow', 'cancelled');
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
        push('workflow', 'continued as new');
        break;
    }
  }
  return entries;
}

export function registerReadCommands(program: Command): void {
  program
    .command('show')
    .description("a run's plan as a tree, with budget, stage and pending question")
    .argument('<id>', 'workflow id')
    .option('--version <n>', 'show plan version n instead of the current one')
    .option('--diff <versions...>', 'what changed between two versions, and why (e.g. --diff 1 2)')
    .option('--task <n>', 'only task n (1-based)')
    .action(
      action(async (opts, id: string) => {
        const out = output(opts);
        const flags = parseArg(
          z.object({
            version: VersionNumber.optional(),
            diff: z.array(VersionNumber).length(2, 'give two versions, e.g. --diff 1 2').optional(),
            task: z.coerce.number().int().min(1).optional(),
          }),
          { version: opts.version, diff: opts.diff, task: opts.task },
          'option',
          'see `planner show --help`',
        );
        const shown = await onRun(
          opts,
          id,
          async (
            client,
            wid,
          ): Promise<{ state: PlanningState; termination: RunTruth['termination'] } | { truth: RunTruth }> => {
            try {
              const state = await client.state(wid);
              const described = await client
                .handle(wid)
                .describe()
                .catch(() => null);
              // A run on a task queue no worker polls makes no progress: said on stderr, beside the state.
              if (described?.status.name === 'RUNNING') await warnIfNoWorker(client, described.taskQueue);
              // A terminated run's state, replayed, stops where it was: its termination is read from the history.
              const termination =
                described?.status.name === 'TERMINATED'
                  ? ((await readRunTruth(client, wid).catch(() => null))?.termination ?? null)
                  : null;
              return { state, termination };
            } catch (err) {
              // A closed run needs a worker to replay it for the query, and one refused at input never registered it:
              // then show what the history says.
              if (!isUnansweredQuery(err) && !isUnregisteredQuery(err)) throw err;
              const truth = await readRunTruth(client, wid).catch(() => null);
              if (!truth || truth.status === 'RUNNING') throw err; // onRun says why
              return { truth };
            }
          },
        );
        if (!('state' in shown)) {
          if (flags.diff || flags.version !== undefined || flags.task !== undefined) {
            throw new CliError(
              `run ${id} ${endingOf(shown.truth)}; its plan versions and tasks need a worker to replay it`,
              EXIT.error,
              `start one with \`planner worker --task-queue ${shellArg(shown.truth.taskQueue)}\`, or see its status without options`,
            );
          }
          const view = closedRunView(shown.truth);
          if (out.json) out.data(view);
          else out.line(renderClosedRun(view).join('\n'));
          return;
        }
        const { state, termination } = shown;
        if (flags.diff) {
          const [a, b] = flags.diff as [number, number];
          const from = await versionOf(state, a);
          const to = await versionOf(state, b);
          const diff = diffView(diffPlans(from.plan, to.plan));
          const why = state.versions
            .filter((v) => v.version > Math.min(a, b) && v.version <= Math.max(a, b))
            .map(versionView);
          if (out.json) out.data({ workflowId: state.workflow_id, from: a, to: b, diff, why });
          else out.line(renderDiff(a, b, diff, why).join('\n'));
          return;
        }
        const plan = flags.version !== undefined ? (await versionOf(state, flags.version)).plan : state.plan;
        const view = stateView(state, plan);
        if (flags.task !== undefined && (!view.plan || flags.task > view.plan.tasks.length)) {
          throw new CliError(
            `plan has no task ${flags.task}`,
            EXIT.notFound,
            `it has ${view.plan?.tasks.length ?? 0} task(s)`,
          );
        }
        if (out.json) {
          if (flags.task !== undefined && view.plan) view.plan.tasks = [view.plan.tasks[flags.task - 1]!];
          out.data({ ...view, termination });
        } else {
          out.line(renderState(view, { task: flags.task }).join('\n'));
          if (termination)
            out.line(`Terminated: ${termination.reason}${termination.identity ? ` (by ${termination.identity})` : ''}`);
        }
      }),
    );

  program
    .command('list')
    .description('planning runs from Temporal visibility, newest (by start time) first')
    .addOption(choiceOption('--stage <stage>', 'only runs in this stage (any case)', STAGES))
    .option('--task-queue <queue>', "only runs on this task queue (a planner worker's --task-queue)")
    .option('--limit <n>', 'the n newest runs by start time (default 50; found among at most 10000 matching runs)')
    .action(
      action(async (opts) => {
        const out = output(opts);
        const flags = parseArg(
          z.object({
            stage: z.enum(STAGES).optional(),
            taskQueue: z.string().trim().min(1).max(1000).optional(),
            limit: z.coerce.number().int().min(1).max(10_000).default(50),
          }),
          {
            stage: typeof opts.stage === 'string' ? opts.stage.toUpperCase() : undefined,
            taskQueue: opts.taskQueue,
            limit: opts.limit,
          },
          'option',
          `stages are ${STAGES.join(', ')}`,
        );
        const runs = await withClient(opts, (client) => client.list(flags));
        const views = runs.map(runView);
        if (out.json) out.data(views);
        else out.line(renderRuns(views).join('\n'));
      }),
    );

  program
    .command('history')
    .description(
      'the decision audit: analysis, plan versions, critiques, gatekeeper, routing, steps, with time and reason',
    )
    .argument('<id>', 'workflow id')
    .action(
      action(async (opts, id: string) => {
        const out = output(opts);
        const { audit, auditUnavailable, events } = await onRun(opts, id, async (client, wid) => {
          const events = historyEntries(await client.history(wid));
          // Without the state (no worker answers, or the run never kept one), the event history alone, saying why.
          return await client.state(wid).then(
            (s) => ({ audit: s.audit.map(auditEntryView), auditUnavailable: null, events }),
            async (err: unknown) => ({ audit: null, auditUnavailable: await whyNoState(client, wid, err), events }),
          );
        });
        const entries = [...(audit ?? []), ...events].sort(
          (x, y) => x.at.localeCompare(y.at) || (x.source === y.source ? 0 : x.source === 'history' ? -1 : 1),
        );
        if (out.json) out.data({ workflowId: id, auditAvailable: audit !== null, auditUnavailable, entries });
        else {
          out.line(renderHistory(id, entries).join('\n'));
          if (auditUnavailable !== null) out.line(`(no decision audit, only Temporal events: ${auditUnavailable})`);
        }
      }),
    );
}
