/**
 * What a run can wait for a person to give, and how the CLI asks for it: one entry per kind of pending input
 * (src/api/progress.ts `PendingInput`) — the lines that show it, the exact commands that answer it from anywhere,
 * and the prompt that reads an answer at a terminal and sends it through the run's validated update. A new kind of
 * question (say a `human` step) is one more entry here.
 */
import { z } from 'zod';
import type { PlannerClient } from '../client';
import { RaiseBudgetSchema, ResolveStepSchema, type PendingInput, type PlanningState } from '../api';
import type { Usage } from '../domain/budget';
import { CliError, EXIT, parseArg } from './context';
import { stateView } from './json-views';
import { costLines, rejectionLines } from './render';
import { shellArg, terminalSafe } from './safe-text';

/** Asks one question at the terminal; null when the terminal closed (no more answers from here). */
export type Ask = (question: string) => Promise<string | null>;

export interface PendingPrompt<P extends PendingInput> {
  /** What the run waits for, as lines (the state, when known, adds the plan to review). */
  show(pending: P, state: PlanningState | null): string[];
  /** The commands that answer it from any terminal. */
  commands(pending: P, workflowId: string): string[];
  /**
   * Reads an answer and sends it through the run's update; the run's reply, or null when the person leaves it for
   * later. A refused update or a malformed answer throws (the caller shows it and asks again).
   */
  answer(pending: P, ask: Ask, client: PlannerClient, workflowId: string): Promise<string | null>;
}

type Prompts = { [K in PendingInput['kind']]: PendingPrompt<Extract<PendingInput, { kind: K }>> };

export const PENDING_PROMPTS: Prompts = {
  clarification: {
    show: (p) => [
      `question: ${terminalSafe(p.text)}`,
      ...p.options.map((o, i) => `  ${i + 1}. ${terminalSafe(o)}${i + 1 === p.default_option ? ' (default)' : ''}`),
    ],
    commands: (p, id) => [
      `planner answer ${shellArg(id)} ${p.default_option}`,
      `planner answer ${shellArg(id)} "<your own answer>"`,
    ],
    async answer(p, ask, client, id) {
      const raw = await ask(
        `Answer: a number 1–${p.options.length}, or your own words [Enter: ${p.default_option}] > `,
      );
      if (raw === null) return null;
      const text = raw.trim() || String(p.default_option);
      const picked = /^\d+$/.test(text) ? p.options[Number(text) - 1] : undefined;
      // "Something else (describe it)" is no answer by itself: the words it asks for are.
      if (picked !== undefined && asksForOwnWords(picked)) {
        const own = await ask(`${terminalSafe(picked)}: your words > `);
        if (own === null) return null;
        if (!own.trim()) throw new CliError('describe it in a few words, or pick another option', EXIT.usage);
        return await client.answer(id, { text: own.trim() });
      }
      return await client.answer(id, /^\d+$/.test(text) ? { option: Number(text) } : { text });
    },
  },
  approval: {
    show: (p, state) => [
      `plan v${p.plan_version} (${p.plan_status}, ${p.steps} step(s)) awaits approval`,
      ...(state?.plan?.version === p.plan_version ? approvalBrief(state) : []),
    ],
    commands: (p, id) => [
      `planner approve ${shellArg(id)} --version ${p.plan_version}`,
      `planner reject ${shellArg(id)} --version ${p.plan_version} --reason "<why>"`,
    ],
    async answer(p, ask, client, id) {
      const raw = await ask(
        `Approve plan v${p.plan_version}? y = approve, n = reject with a reason [Enter: decide later] > `,
      );
      if (raw === null || raw.trim() === '') return null;
      if (/^y(es)?$/i.test(raw.trim())) return await client.approve(id, undefined, p.plan_version);
      if (!/^no?$/i.test(raw.trim())) throw new CliError(`"${raw.trim()}" is neither y nor n`, EXIT.usage);
      const reason = await ask('Why reject it? (the reason shapes the next version) > ');
      if (reason === null) return null;
      if (!reason.trim()) throw new CliError('a rejection needs a reason', EXIT.usage);
      return await client.reject(id, reason.trim(), p.plan_version);
    },
  },
  budget: {
    show: (p) => [
      `budget exhausted: spent ${usage(p.spent)} of ${usage(p.limit)}${p.needed ? `; needs ${usage(p.needed)}` : ''}`,
    ],
    commands: (_p, id) => [`planner raise-budget ${shellArg(id)} --calls 10 --tokens 20000 --cost 0.5`],
    async answer(_p, ask, client, id) {
      const raw = await ask('Raise the limits by, e.g. "calls 10 tokens 20000 cost 0.5" [Enter: decide later] > ');
      if (raw === null || raw.trim() === '') return null;
      const budget = await client.raiseBudget(id, parseRaise(raw));
      return `limits raised to ${usage(budget.limit)}`;
    },
  },
  step: {
    show: (p) => [`step ${terminalSafe(p.step_id)} waits for a person: ${terminalSafe(p.question)} (until ${p.until})`],
    commands: (p, id) =>
      p.for === 'answer'
        ? [`planner complete ${shellArg(id)} ${shellArg(p.step_id)} "<answer>"`]
        : p.for === 'approval'
          ? [
              `planner approve ${shellArg(id)} --step ${shellArg(p.step_id)}`,
              `planner reject ${shellArg(id)} --step ${shellArg(p.step_id)} --reason "<why>"`,
            ]
          : [`planner resolve ${shellArg(id)} ${shellArg(p.step_id)} retry|done|fail ["<text>"]`],
    async answer(p, ask, client, id) {
      if (p.for === 'approval') {
        const raw = await ask(
          `Approve step ${p.step_id}? y = run it, n = reject with a reason [Enter: decide later] > `,
        );
        if (raw === null || raw.trim() === '') return null;
        if (/^y(es)?$/i.test(raw.trim())) return await client.approve(id, undefined, undefined, p.step_id);
        if (!/^no?$/i.test(raw.trim())) throw new CliError(`"${raw.trim()}" is neither y nor n`, EXIT.usage);
        const reason = await ask('Why reject it? (the step fails and the run re-plans with the reason) > ');
        if (reason === null) return null;
        if (!reason.trim()) throw new CliError('a rejection needs a reason', EXIT.usage);
        return await client.reject(id, reason.trim(), undefined, p.step_id);
      }
      if (p.for === 'answer') {
        const answer = await ask(`Answer for step ${p.step_id} [Enter: decide later] > `);
        return answer === null || answer.trim() === '' ? null : await client.completeStep(id, p.step_id, answer.trim());
      }
      const raw = await ask(`Step ${p.step_id}: retry, done [text] or fail [why]? [Enter: decide later] > `);
      if (raw === null || raw.trim() === '') return null;
      const [, decision, text] = /^\s*(\S+)\s*(.*)$/.exec(raw)!;
      const parsed = parseArg(
        ResolveStepSchema,
        { step: p.step_id, decision, ...(text ? { text } : {}) },
        'decision',
        'type retry, done or fail',
      );
      return await client.resolveStep(id, parsed);
    },
  },
};

/** Params shown at the prompt, per step: enough to judge what it will do, cut to stay on one line. */
const PROMPT_PARAMS_CHARS = 300;

/**
 * What a person is shown before deciding on a plan: each step with its params, the plan's estimate and cost
 * forecast, and, after a rejection, what changed from the rejected version and why (or why nothing could).
 */
function approvalBrief(state: PlanningState): string[] {
  const view = stateView(state);
  const plan = view.plan!;
  const steps = plan.tasks.flatMap((t) =>
    t.steps.map((s) => {
      const params = JSON.stringify(s.params);
      const shown = params.length > PROMPT_PARAMS_CHARS ? `${params.slice(0, PROMPT_PARAMS_CHARS - 1)}…` : params;
      return `  ${terminalSafe(s.id)} ${terminalSafe(s.tool ?? `(${s.action})`)} ${terminalSafe(shown)} — ${terminalSafe(s.title)}`;
    }),
  );
  return [...steps, ...costLines(view, plan), ...rejectionLines(view, plan.version)];
}

/**
 * An option that stands for the person's own words ("Something else (describe it)", "Other (please specify)"): picking
 * it asks for those words, which are sent as the answer, instead of sending the option's text as if it were one.
 */
export function asksForOwnWords(option: string): boolean {
  return (
    /^\s*(something else|other|none of (these|the above))\b/i.test(option) ||
    /\((please )?(describe|specify)\b[^)]*\)\s*$/i.test(option)
  );
}

/** The entry for a pending input, typed by its kind. */
export function promptFor<P extends PendingInput>(pending: P): PendingPrompt<P> {
  return PENDING_PROMPTS[pending.kind] as unknown as PendingPrompt<P>;
}

const RaiseWords = z
  .string()
  .regex(/^(\s*(calls|tokens|cost)\s*[= ]\s*\d+(\.\d+)?\s*,?)+$/i, 'write e.g. "calls 10 tokens 20000 cost 0.5"');

/** "calls 10 tokens 20000 cost 0.5" (or calls=10, …) as a raise the run's update accepts. */
export function parseRaise(text: string): z.output<typeof RaiseBudgetSchema> {
  parseArg(RaiseWords, text, 'raise');
  const amounts: Record<string, number> = {};
  for (const [, word, amount] of text.matchAll(/(calls|tokens|cost)\s*[= ]\s*(\d+(?:\.\d+)?)/gi))
    amounts[word!.toLowerCase()] = Number(amount);
  return parseArg(
    RaiseBudgetSchema,
    { cost_usd: amounts.cost ?? 0, tokens: amounts.tokens ?? 0, calls: amounts.calls ?? 0 },
    'raise',
  );
}

function usage(u: Usage): string {
  return `${u.calls} calls · ${u.tokens} tokens · $${u.cost_usd.toFixed(4)}`;
}
