/**
 * Human output of the CLI: the plan tree, a version diff, the run list and the decision audit. Built on json-views.
 * Every run-provided field goes through `safe` (terminalSafe): its control characters are printed escaped, on one line.
 */
import { shellArg, terminalSafe } from './safe-text';

const safe = (text: string): string => terminalSafe(text);
import type {
  BudgetView,
  ClosedRunView,
  CostFiguresView,
  DiffView,
  HistoryEntryView,
  PlanView,
  ResultView,
  RunView,
  StateView,
  StepView,
  TaskView,
  VersionView,
} from './json-views';

const TASK_BADGE: Record<string, string> = {
  COMPLETED: 'DONE',
  FAILED: 'FAILED',
  RUNNING: 'RUNNING',
  WAITING: 'WAITING',
  CANCELLED: 'CANCELLED',
  PENDING: 'PENDING',
};

function taskStatus(steps: readonly StepView[]): string {
  const statuses = steps.map((s) => s.status);
  if (statuses.some((s) => s === null)) return 'PLANNED';
  if (statuses.every((s) => s === 'COMPLETED')) return 'DONE';
  for (const s of ['FAILED', 'WAITING', 'RUNNING', 'CANCELLED'] as const)
    if (statuses.includes(s)) return TASK_BADGE[s]!;
  if (statuses.includes('COMPLETED')) return 'RUNNING';
  return 'PENDING';
}

export function budgetLine(b: BudgetView): string {
  return (
    `Budget: ${b.spent.calls}/${b.limit.calls} calls · ${b.spent.tokens}/${b.limit.tokens} tokens · ` +
    `$${b.spent.costUsd.toFixed(4)}/$${b.limit.costUsd.toFixed(2)} (${b.policy})`
  );
}

function paramsText(params: Record<string, unknown>): string {
  const text = JSON.stringify(params);
  return text.length > 100 ? `${safe(text).slice(0, 99)}…` : safe(text);
}

/** How long a step took (or since when it runs), and its attempts when Temporal retried it: " · 1.2 s · 3 attempts". */
export function stepTiming(
  elapsedMs: number | null | undefined,
  attempts: number | null | undefined,
  runningSince?: string | null,
): string {
  const parts: string[] = [];
  if (typeof elapsedMs === 'number') parts.push(duration(elapsedMs));
  else if (runningSince) parts.push(`running since ${runningSince.slice(11, 19)}Z`);
  if (typeof attempts === 'number' && attempts > 1) parts.push(`${attempts} attempts`);
  return parts.map((p) => ` · ${p}`).join('');
}

function duration(ms: number): string {
  if (ms < 1_000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const s = Math.round(ms / 1_000);
  return s < 3_600
    ? `${Math.floor(s / 60)} min ${s % 60} s`
    : `${Math.floor(s / 3_600)} h ${Math.floor((s % 3_600) / 60)} min`;
}

/**
 * The plan as a tree:
 *   Task Plan (v2) · FEASIBLE · stage COMPLETED
 *   Goal: …
 *   Tasks:
 *   1. [DONE] Fetch shipments
 *      Steps:
 *      1.1 [COMPLETED] List last week's shipments → shipments {"from": …}
 *   2. [PENDING] …
 *      Depends: Task 1
 */
export function renderPlan(view: StateView, plan: PlanView, options: { task?: number } = {}): string[] {
  const lines = [`Task Plan (v${plan.version}) · ${plan.status} · stage ${view.stage}`, `Goal: ${safe(plan.goal)}`];
  if (plan.missingCapabilities.length)
    lines.push(`Missing capabilities: ${plan.missingCapabilities.map(safe).join(', ')}`);
  lines.push(budgetLine(view.budget), ...costLines(view, plan));
  const stepNumber = new Map<string, string>();
  const taskOfStep = new Map<string, number>();
  plan.tasks.forEach((task, t) =>
    task.steps.forEach((step, s) => (stepNumber.set(step.id, `${t + 1}.${s + 1}`), taskOfStep.set(step.id, t + 1))),
  );
  lines.push('', 'Tasks:');
  plan.tasks.forEach((task, t) => {
    if (options.task !== undefined && options.task !== t + 1) return;
    lines.push(`${t + 1}. [${taskStatus(task.steps)}] ${safe(task.title)}`);
    if (task.description) lines.push(`   ${safe(task.description)}`);
    const taskDeps = task.dependsOn.map((d) => `Task ${safe(d)}`);
    if (taskDeps.length) lines.push(`   Depends: ${taskDeps.join(', ')}`);
    lines.push(`   Complexity: ${task.complexity}`);
    if (options.task !== undefined) lines.push(...resourceLines(task.resources));
    if (task.acceptanceCriteria.length) {
      lines.push(`   Acceptance Criteria:${task.checked ? (task.checked.passed ? ' (met)' : ' (FAILED)') : ''}`);
      for (const c of task.acceptanceCriteria) {
        const verdict = c.result ? (c.result.passed ? 'PASS' : 'FAIL') : ' -  ';
        const detail = c.result ? ` — ${safe(c.result.detail)}` : '';
        lines.push(`   [${verdict}] ${safe(c.id)} ${safe(c.description)}${c.test ? ' (test)' : ''}${detail}`);
      }
    }
    lines.push('   Steps:');
    task.steps.forEach((step, s) => {
      const tool = step.tool ? ` → ${step.tool} ${paramsText(step.params)}` : ` (${safe(step.action)})`;
      lines.push(
        `   ${t + 1}.${s + 1} [${step.status ?? 'PLANNED'}] ${safe(step.title)}${tool}${stepTiming(step.elapsedMs, step.attempts, step.status === 'RUNNING' ? step.startedAt : null)}`,
      );
      if (step.dependsOn.length)
        lines.push(`       Depends: ${step.dependsOn.map((d) => `${stepNumber.get(d) ?? safe(d)}`).join(', ')}`);
      if (step.items !== null || step.preview)
        lines.push(`       Result: ${step.items ?? '-'} item(s) ${safe(step.preview ?? '').slice(0, 100)}`.trimEnd());
      if (step.error) lines.push(`       Error: ${safe(step.error.code)} ${safe(step.error.message)}`);
      if (step.waiting) {
        const how =
          step.waiting.for === 'answer'
            ? `planner complete ${shellArg(view.workflowId)} ${shellArg(step.id)} <answer>`
            : step.waiting.for === 'approval'
              ? `planner approve ${shellArg(view.workflowId)} --step ${shellArg(step.id)}  |  planner reject … --step ${shellArg(step.id)} --reason "…"`
              : `planner resolve ${shellArg(view.workflowId)} ${shellArg(step.id)} retry|done|fail`;
        lines.push(
          `       Waits for a person until ${safe(step.waiting.until)}: ${safe(step.waiting.question)} (${how})`,
        );
      }
    });
  });
  if (plan.assumptions.length && options.task === undefined)
    lines.push('', `Assumptions: ${plan.assumptions.map(safe).join('; ')}`);
  return lines;
}

function figures(f: CostFiguresView): string {
  return `${f.calls} call(s), ${f.tokens} tokens, $${f.costUsd.toFixed(6)}, ${f.seconds.toFixed(1)} s`;
}

/**
 * What the plan will cost: its own estimate and, once made (before a person is asked), the forecast from the
 * recorded costs of past runs.
 */
export function costLines(view: Pick<StateView, 'versions'>, plan: PlanView): string[] {
  const e = plan.estimate;
  const lines = [
    `Estimate: ${e.calls} call(s), ${e.tokens} tokens, $${e.costUsd.toFixed(6)}, ${duration(e.durationMs)}`,
  ];
  const forecast = view.versions.find((v) => v.version === plan.version)?.forecast;
  if (forecast)
    lines.push(
      `Forecast: p50 ${figures(forecast.p50)} · p90 ${figures(forecast.p90)} (${forecast.fromHistory} step(s) from recorded costs, ${forecast.fromEstimate} from the estimate)`,
    );
  return lines;
}

/** A version made after a rejection: what changed from the rejected one and why, or why the reason could not be honoured. */
export function rejectionLines(view: Pick<StateView, 'versions'>, version: number): string[] {
  const record = view.versions.find((v) => v.version === version);
  if (!record || record.reason !== 'human_rejection' || record.parentVersion === null) return [];
  const lines = record.diff ? renderDiff(record.parentVersion, version, record.diff, [record]) : [];
  if (record.unhonouredRejection) lines.push(`Cannot honour the rejection: ${safe(record.unhonouredRejection)}`);
  return lines;
}

/** `show --task N`'s resources: what the task reads, writes and runs (lines only for what it has). */
function resourceLines(r: TaskView['resources']): string[] {
  const rows: [string, string[]][] = [
    ['Tools', r.tools],
    ['Reads', r.reads],
    ['Writes', r.writes],
    ['Side effects', r.side_effects],
    ['Files read', r.files_read],
    ['Files written', r.files_written],
    ['Folders created', r.folders_created],
    ['Commands', r.commands],
  ];
  const shown = rows.filter(([, v]) => v.length > 0);
  return shown.length ? ['   Resources:', ...shown.map(([k, v]) => `     ${k}: ${v.map(safe).join(', ')}`)] : [];
}

/** Previews are cut short; where the whole data is. */
function resultHint(workflowId: string): string {
  return `Full results: planner result ${shellArg(workflowId)}  (one step: --step N; as JSON: --json)`;
}

export function renderState(view: StateView, options: { task?: number } = {}): string[] {
  const lines: string[] = [];
  if (view.plan) lines.push(...renderPlan(view, view.plan, options));
  else
    lines.push(
      `Run ${view.workflowId} · stage ${view.stage} · no plan yet`,
      `Goal: ${safe(view.goal)}`,
      budgetLine(view.budget),
    );
  if (view.question) {
    lines.push('', `Question: ${safe(view.question.text)}`);
    view.question.options.forEach((o, i) =>
      lines.push(`  ${i + 1}. ${safe(o)}${i + 1 === view.question!.default ? ' (default)' : ''}`),
    );
    lines.push(`Answer with: planner answer ${shellArg(view.workflowId)} <number or text>`);
  }
  if (view.stage === 'AWAITING_APPROVAL') {
    const rejected = view.plan ? rejectionLines(view, view.plan.version) : [];
    if (rejected.length) lines.push('', ...rejected);
    lines.push(
      '',
      `Awaiting approval: planner approve ${shellArg(view.workflowId)}  |  planner reject ${shellArg(view.workflowId)} --reason "…"`,
    );
  }
  if (view.stage === 'BUDGET_EXHAUSTED')
    lines.push('', `Out of budget: planner raise-budget ${shellArg(view.workflowId)} --calls 10`);
  if (view.plan?.tasks.some((t) => t.steps.some((st) => st.status === 'COMPLETED')))
    lines.push('', resultHint(view.workflowId));
  if (view.versions.length > 1)
    lines.push('', `Versions: ${view.versions.map((v) => `v${v.version} (${safe(v.reason)})`).join(', ')}`);
  const cost = view.forecastOutcome;
  if (cost)
    lines.push(
      '',
      `Cost of v${cost.version}: ${figures(cost.actual)}, ${cost.withinP90 ? 'within' : `over (${cost.over.join(', ')})`} the p90 forecast`,
    );
  for (const w of view.warnings) lines.push(`warning: ${safe(w)}`);
  if (view.failure)
    lines.push(`Failure: ${safe(view.failure.code)} ${safe(view.failure.message)}`, `Hint: ${safe(view.failure.hint)}`);
  if (view.answer_note) lines.push('', `Answer: ${safe(view.answer_note)}`);
  return lines;
}

export function renderDiff(from: number, to: number, diff: DiffView, why: readonly VersionView[]): string[] {
  const lines = [`Plan v${from} → v${to}: ${safe(diff.summary.replace(/^v\d+ → v\d+: /, ''))}`];
  for (const id of diff.added) lines.push(`  + ${safe(id)}`);
  for (const id of diff.removed) lines.push(`  - ${safe(id)}`);
  for (const c of diff.changed) lines.push(`  ~ ${safe(c.id)} (${c.fields.map(safe).join(', ')})`);
  if (why.length) lines.push('', 'Why:');
  for (const v of why) lines.push(`  v${v.version} (${safe(v.reason)}): ${safe(v.explanation)}`);
  return lines;
}

/** Columns padded to their widest cell; the cells must already be safe. */
function table(header: readonly string[], rows: readonly string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [header, ...rows].map((r) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

export function renderRuns(runs: readonly RunView[]): string[] {
  if (runs.length === 0) return ['No planning runs found.'];
  const rows = runs.map((r) => [
    safe(r.workflowId),
    safe(r.stage ?? '-'),
    r.status,
    r.startTime.replace(/\.\d+Z$/, 'Z'),
    safe(r.goal ?? '').slice(0, 60),
  ]);
  return table(['WORKFLOW ID', 'STAGE', 'STATUS', 'STARTED', 'GOAL'], rows);
}

const isRow = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A cell: strings as they are, anything else as JSON; escaped and on one line. */
function cell(value: unknown): string {
  return safe(typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value));
}

/**
 * A step's data in full: an array of objects (rows) as a table with a column per key (in first-seen order), anything
 * else as indented JSON.
 */
export function renderData(data: unknown): string[] {
  if (Array.isArray(data) && data.length > 0 && data.every(isRow)) {
    const columns = [...new Set(data.flatMap((row) => Object.keys(row)))];
    return table(
      columns.map((c) => safe(c).toUpperCase()),
      data.map((row) => columns.map((c) => cell(row[c]))),
    );
  }
  return (JSON.stringify(data, null, 2) ?? 'null').split('\n').map(safe);
}

export function renderResult(view: ResultView): string[] {
  const lines = [
    `Results of ${safe(view.workflowId)}${view.planVersion !== null ? ` · plan v${view.planVersion}` : ''}${view.stage ? ` · stage ${safe(view.stage)}` : ''}`,
  ];
  if (view.steps.length === 0) lines.push('', 'No step has a result yet.');
  for (const step of view.steps) {
    const items = step.items !== null ? ` · ${step.items} item(s)` : '';
    lines.push(
      '',
      `Step ${step.number} (${safe(step.id)}) ${safe(step.tool ?? '')} [${step.status}]${items}${step.ref ? ` · ${step.ref}` : ''}`,
    );
    lines.push(...(step.data === null && step.status !== 'COMPLETED' ? ['(no result)'] : renderData(step.data)));
  }
  if (view.answer_note) lines.push('', `Answer: ${safe(view.answer_note)}`);
  return lines;
}

export function renderHistory(workflowId: string, entries: readonly HistoryEntryView[]): string[] {
  const width = Math.max(8, ...entries.map((e) => e.kind.length));
  return [
    `Decisions of ${safe(workflowId)}:`,
    ...entries.map(
      (e) =>
        `${e.at.replace(/\.\d+Z$/, 'Z')}  ${safe(e.kind).padEnd(width)}  ${e.source === 'history' ? '· ' : ''}${safe(e.message)}${e.by && !e.message.includes(`by ${e.by}`) ? ` (by ${safe(e.by)})` : ''}`,
    ),
  ];
}

/** A closed run shown from Temporal's history (no worker to replay it): its status, ending and result. */
export function renderClosedRun(view: ClosedRunView): string[] {
  const lines = [
    `Run ${safe(view.workflowId)} · ${view.status}${view.stage ? ` · stage ${safe(view.stage)}` : ''} (from Temporal's history: no worker replayed it)`,
  ];
  if (view.goal !== null) lines.push(`Goal: ${safe(view.goal)}`);
  if (view.termination)
    lines.push(
      `Terminated: ${safe(view.termination.reason)}${view.termination.identity ? ` (by ${safe(view.termination.identity)})` : ''}`,
    );
  if (view.timedOut) lines.push('Timed out: its workflow execution timeout passed');
  if (view.planVersion !== null) lines.push(`Plan v${view.planVersion} · ${safe(view.planStatus ?? '-')}`);
  for (const s of view.steps) {
    lines.push(
      `  ${safe(s.id)} ${safe(s.tool ?? '')} [${s.status}]${s.items !== null ? ` ${s.items} item(s)` : ''} ${safe(s.preview ?? '').slice(0, 100)}`.trimEnd(),
    );
  }
  if (view.steps.some((st) => st.status === 'COMPLETED')) lines.push(resultHint(view.workflowId));
  if (view.budget) lines.push(budgetLine(view.budget));
  for (const w of view.warnings) lines.push(`warning: ${safe(w)}`);
  if (view.failure)
    lines.push(`Failure: ${safe(view.failure.code)} ${safe(view.failure.message)}`, `Hint: ${safe(view.failure.hint)}`);
  return lines;
}
