/**
 * The run's current details for the Web UI (Temporal user metadata, `setCurrentDetails`): a short markdown view of
 * where the run stands. Pure; clipped to CURRENT_DETAILS_MAX_CHARS so it always fits the metadata query's reply.
 */
import { emptyAnswerNote } from '../api/answer';
import { pendingInput, type PendingInput } from '../api/progress';
import type { PlanningState, StepRecord } from '../api/state';
import type { Usage } from '../domain/budget';
import type { CostFigures } from '../domain/cost-forecast';
import { shellQuote } from '../domain/shell';

/** The markdown view is at most this long (the steps table is cut first, with a line saying how many were left out). */
export const CURRENT_DETAILS_MAX_CHARS = 8_000;
const TABLE_ROWS_MAX = 40;
const TEXT_MAX = 300;

export function planDetails(state: PlanningState): string {
  const plan = state.plan;
  const head = [
    `**Stage:** ${state.stage}`,
    plan
      ? `**Plan:** v${plan.version} (${plan.status}), ${plan.tasks.reduce((n, t) => n + t.steps.length, 0)} step(s)`
      : '**Plan:** none yet',
    `**Budget:** ${usageLine(state.budget.spent, state.budget.limit)} (${state.budget.policy})`,
    ...costLines(state),
  ].join('  \n');
  const pending = pendingInput(state);
  const empty = emptyAnswerNote(state);
  const tail = [
    plan ? tasksBlock(state) : '',
    pending ? pendingBlock(pending, state.workflow_id, state) : '',
    state.failure ? `**Failed:** ${cell(state.failure.message)}` : '',
    empty ? `**Answer:** ${cell(empty)}` : '',
  ].filter(Boolean);
  // Before routing the steps are the plan's, not yet scheduled: shown as PLANNED (e.g. for a person to approve).
  const steps =
    state.steps.length > 0
      ? state.steps
      : (plan?.tasks.flatMap((t) =>
          t.steps.map((s) => ({ id: s.id, title: s.title, tool: s.tool, status: 'PLANNED' })),
        ) ?? []);
  let rows = steps.slice(0, TABLE_ROWS_MAX).map(stepRow);
  const fits = (r: string[]) =>
    [head, table(r, steps.length), ...tail].join('\n\n').length <= CURRENT_DETAILS_MAX_CHARS;
  while (rows.length > 0 && !fits(rows)) rows = rows.slice(0, -1);
  return [head, table(rows, steps.length), ...tail].filter(Boolean).join('\n\n').slice(0, CURRENT_DETAILS_MAX_CHARS);
}

/** Each task with its dependencies and its acceptance criteria, PASS/FAIL once the verifier checked them. */
function tasksBlock(state: PlanningState): string {
  const plan = state.plan!;
  const lines = plan.tasks.slice(0, TABLE_ROWS_MAX).map((t) => {
    const check = state.task_checks?.find((c) => c.task === t.id && c.plan_version === plan.version);
    const criteria = (t.acceptance_criteria ?? []).map((c) => {
      const r = check?.results.find((x) => x.id === c.id);
      return `${cell(c.id)} ${r ? (r.passed ? 'PASS' : 'FAIL') : '–'}${c.test ? '' : ' (reported)'}`;
    });
    const after = t.depends_on?.length ? ` (after ${t.depends_on.map(cell).join(', ')})` : '';
    return `- **${cell(t.id)}** ${cell(t.title)}${after}${criteria.length ? `: ${criteria.join(', ')}` : ''}`;
  });
  return `**Tasks:**\n${lines.join('\n')}`;
}

function table(rows: string[], total: number): string {
  if (total === 0) return '';
  const more = total > rows.length ? `\n\n… and ${total - rows.length} more step(s) (planner show)` : '';
  return ['| step | tool | status | result |', '| --- | --- | --- | --- |', ...rows].join('\n') + more;
}

function stepRow(step: Pick<StepRecord, 'id' | 'title' | 'tool' | 'error' | 'result'> & { status: string }): string {
  const r = step.result;
  const result = r
    ? `${r.items !== null ? `${r.items} item(s), ` : ''}${sizeOf(r.bytes)}`
    : step.error
      ? cell(step.error.message)
      : '–';
  return `| ${cell(step.id)} ${cell(step.title)} | ${cell(step.tool ?? '–')} | ${step.status} | ${result} |`;
}

function pendingBlock(pending: PendingInput, workflowId: string, state: PlanningState): string {
  const id = shellQuote(workflowId);
  switch (pending.kind) {
    case 'clarification':
      return [
        `**Question:** ${cell(pending.text)}`,
        ...pending.options.map((o, i) => `${i + 1}. ${cell(o)}${i + 1 === pending.default_option ? ' (default)' : ''}`),
        `Answer: ${code(`planner answer ${id} <number or text>`)}`,
      ].join('\n');
    case 'approval': {
      const record = state.versions.find((v) => v.version === pending.plan_version);
      const after =
        record?.reason === 'human_rejection'
          ? ` After the rejection of v${record.parent_version}: ${cell(record.unhonoured_rejection ?? record.diff?.summary ?? '')}.`
          : '';
      return `**Waiting for approval** of plan v${pending.plan_version} (${pending.plan_status}, ${pending.steps} step(s)).${after} Approve: ${code(`planner approve ${id} --version ${pending.plan_version}`)}`;
    }
    case 'step': {
      const step = shellQuote(pending.step_id);
      return `**Step ${cell(pending.step_id)} waits for a person:** ${cell(pending.question)} (until ${pending.until}). ${pending.for === 'answer' ? `Answer: ${code(`planner complete ${id} ${step} "<answer>"`)}` : pending.for === 'approval' ? `Approve: ${code(`planner approve ${id} --step ${step}`)}` : `Decide: ${code(`planner resolve ${id} ${step} retry|done|fail`)}`}`;
    }
    case 'budget':
      return `**Waiting for a budget raise:** needs ${pending.needed ? usageLine(pending.needed) : 'more'}. Raise: ${code(`planner raise-budget ${id} --calls 10`)}`;
  }
}

/** A command as a markdown code span on one line; a backtick in it (a quoted id's) cannot end the span early. */
function code(command: string): string {
  const flat = command.replace(/[\r\n]+/g, ' ');
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return longest === 0 ? `${fence}${flat}${fence}` : `${fence} ${flat} ${fence}`;
}

/** The plan's estimate and, once made, its cost forecast (src/domain/cost-forecast.ts). */
function costLines(state: PlanningState): string[] {
  const plan = state.plan;
  if (!plan) return [];
  const e = plan.estimate;
  const forecast = state.versions.find((v) => v.version === plan.version)?.forecast;
  const figures = (f: CostFigures) => `${usageLine(f)} · ${f.seconds.toFixed(1)} s`;
  return [
    `**Estimate:** ${usageLine(e)} · ${(e.duration_ms / 1000).toFixed(1)} s`,
    ...(forecast ? [`**Forecast:** p50 ${figures(forecast.p50)}; p90 ${figures(forecast.p90)}`] : []),
  ];
}

function usageLine(spent: Usage, limit?: Usage): string {
  const of = (v: string, l: string | undefined) => (l === undefined ? v : `${v}/${l}`);
  return [
    `${of(String(spent.calls), limit && String(limit.calls))} calls`,
    `${of(String(spent.tokens), limit && String(limit.tokens))} tokens`,
    // No "$": the Web UI's markdown reads a pair of them as math.
    `${of(spent.cost_usd.toFixed(4), limit && limit.cost_usd.toFixed(2))} USD`,
  ].join(' · ');
}

function sizeOf(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

/** One line of table text: no pipes or newlines to break the table, clipped. */
function cell(text: string): string {
  const flat = text.replace(/[\r\n]+/g, ' ').replace(/\|/g, '\\|');
  return flat.length > TEXT_MAX ? `${flat.slice(0, TEXT_MAX - 1)}…` : flat;
}
