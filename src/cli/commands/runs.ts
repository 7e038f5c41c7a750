/** Commands that start and drive a run: start, answer, approve, reject, raise-budget, cancel. */
import type { Command } from 'commander';
import { z } from 'zod';
import type { PlannerClient } from '../../client';
import { BudgetLimitsSchema, BudgetPolicySchema } from '../../domain/budget';
import { ClarificationAnswerSchema, RaiseBudgetSchema, RejectSchema } from '../../api/messages';
import {
  APPROVAL_MODES,
  DEFAULT_BUDGET,
  checkWorkflowInput,
  pendingInput,
  type PlanningState,
  type PlanningWorkflowInput,
} from '../../api';
import {
  CliError,
  EXIT,
  WorkflowIdSchema,
  explainRunError,
  output,
  parseArg,
  usageErrorOf,
  withClient,
  type GlobalOptions,
} from '../context';
import { choiceOption } from '../completion';
import { budgetView, stateView } from '../json-views';
import { budgetLine, renderState } from '../render';
import { shellArg, terminalSafe } from '../safe-text';
import { onInterrupt, signalExitCode } from '../signals';
import { watchRun } from '../watch';
import { asksForOwnWords } from '../prompts';
import { explainUnanswered, isUnansweredQuery, readRunTruth, runningQueue, warnIfNoWorker } from '../run-truth';

// Flags arrive as text; an empty or odd value ("", "1e3", " ") is a usage error, never a silent 0.
const Amount = z
  .string()
  .trim()
  .regex(/^\d+(\.\d+)?$/, 'must be an amount such as 0.5')
  .transform(Number);
const Count = z.string().trim().regex(/^\d+$/, 'must be a whole number such as 20').transform(Number);

const PLANNER_KINDS = ['auto', 'llm', 'ranking'] as const;

const StartFlagsSchema = z.object({
  id: WorkflowIdSchema.optional(),
  taskQueue: z.string().trim().min(1).optional(),
  budgetCost: Amount.optional(),
  budgetTokens: Count.optional(),
  budgetCalls: Count.optional(),
  budgetPolicy: BudgetPolicySchema.optional(),
  requireApproval: z.boolean().optional(),
  approval: z.enum(APPROVAL_MODES).optional(),
  fourEyes: z.boolean().optional(),
  planner: z.enum(PLANNER_KINDS).optional(),
  catalog: z.string().trim().min(1).optional(),
  wait: z.boolean().optional(),
  reuseId: z.boolean().optional(),
  planCache: z.boolean().optional(),
});

type Opts = GlobalOptions & Record<string, unknown>;

/** Wraps a command action: global options merged in, run errors explained (unknown id, refused message …). */
function action<A extends unknown[]>(fn: (opts: Opts, ...args: A) => Promise<void>) {
  return async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const positional = args.slice(0, -2) as A;
    await fn(command.optsWithGlobals<Opts>(), ...positional);
  };
}

/**
 * An error on a run as the CLI reports it. A query that got no answer is not guessed at: what Temporal knows of the
 * run (src/cli/run-truth.ts) says whether its workflow task is failing, it was terminated, it failed, or no worker polls.
 */
async function explainRun(client: PlannerClient, err: unknown, workflowId: string): Promise<unknown> {
  if (isUnansweredQuery(err)) {
    const truth = await readRunTruth(client, workflowId).catch(() => null);
    if (truth) return explainUnanswered(truth, err);
  }
  return explainRunError(err, workflowId, client.target.address);
}

async function onRun<T>(
  opts: GlobalOptions,
  id: string,
  fn: (client: PlannerClient, id: string) => Promise<T>,
): Promise<T> {
  const workflowId = parseArg(WorkflowIdSchema, id, 'workflow id');
  return await withClient(opts, async (client) => {
    try {
      return await fn(client, workflowId);
    } catch (err) {
      throw await explainRun(client, err, workflowId);
    }
  });
}

/** `--version n`: a whole number from 1, as `planner show` prints plan versions. */
const PlanVersionArg = z.coerce.number().int().min(1).max(1_000_000).optional();
/** A step id as `planner show` prints it (the bounds of the updates' step field). */
const StepArg = z.string().trim().min(1).max(64).optional();

/**
 * The plan version a decision is about: `--version`, else the one awaiting approval as read now, sent with the
 * decision, so that a version replaced in between (another reviewer's rejection) is refused, never decided unseen.
 * With none awaiting approval, the current plan's: the run's refusal then says what became of it.
 */
async function decidedVersion(
  client: PlannerClient,
  workflowId: string,
  given: number | undefined,
): Promise<number | undefined> {
  if (given !== undefined) return given;
  const state = await client.state(workflowId);
  const pending = pendingInput(state);
  return pending?.kind === 'approval' ? pending.plan_version : (state.plan?.version ?? undefined);
}

export function registerRunCommands(program: Command): void {
  program
    .command('start')
    .description('start a planning run for a goal')
    .argument('<goal>', 'the goal, in natural language')
    .option('--id <workflowId>', 'workflow id (default: plan-<time>-<random>)')
    .option('--task-queue <queue>', 'the planner task queue (default: $PLANNER_TASK_QUEUE or durable-planner)')
    .option('--budget-cost <usd>', `cost limit in USD (default ${DEFAULT_BUDGET.cost_usd})`)
    .option('--budget-tokens <n>', `token limit (default ${DEFAULT_BUDGET.tokens})`)
    .option('--budget-calls <n>', `call limit (default ${DEFAULT_BUDGET.calls})`)
    .addOption(
      choiceOption(
        '--budget-policy <policy>',
        'at a limit: warn, block (default) or fail (a plan that does not fit ends the run, PLAN-004)',
        BudgetPolicySchema.options,
      ),
    )
    .addOption(
      choiceOption(
        '--approval <when>',
        'when a person must approve (`planner approve`; default never); side-effects: a plan with a step that is not read-only waits; per-step: the plan runs and each such step waits when reached',
        APPROVAL_MODES,
      ),
    )
    .option('--require-approval', 'the same as --approval always')
    .option('--four-eyes', 'refuse an approval from the identity that starts the run: another person must approve')
    .addOption(
      choiceOption('--planner <kind>', 'who plans (default auto: the LLM when one is configured)', PLANNER_KINDS),
    )
    .option('--catalog <name>', 'tool catalog (default waste)')
    .option('--wait', 'follow the run until it ends, answering its questions at a terminal')
    .option(
      '--reuse-id',
      'with --id: start a new run even if a closed run already has this id (a running one is always refused)',
    )
    .option('--no-plan-cache', 'plan afresh: do not reuse (or cache) an LLM plan for the same goal')
    .action(
      action(async (opts, goal: string) => {
        const out = output(opts);
        const flags = parseArg(
          StartFlagsSchema,
          pick(opts, Object.keys(StartFlagsSchema.shape)),
          'option',
          'see `planner start --help`',
        );
        const budget = parseArg(
          BudgetLimitsSchema,
          {
            cost_usd: flags.budgetCost ?? DEFAULT_BUDGET.cost_usd,
            tokens: flags.budgetTokens ?? DEFAULT_BUDGET.tokens,
            calls: flags.budgetCalls ?? DEFAULT_BUDGET.calls,
            policy: flags.budgetPolicy ?? DEFAULT_BUDGET.policy,
          },
          'budget',
        );
        const options = {
          ...(flags.approval ? { approval: flags.approval } : {}),
          ...(flags.requireApproval ? { require_approval: true } : {}), // with --approval other than always: refused as contradicting it
          ...(flags.fourEyes ? { four_eyes: true } : {}),
          ...(flags.planCache === false ? { plan_cache: 'off' as const } : {}),
        };
        const input: PlanningWorkflowInput = {
          request: {
            goal,
            budget,
            ...(flags.planner ? { planner: flags.planner } : {}),
            ...(flags.catalog ? { tool_catalog: flags.catalog } : {}),
          },
          ...(Object.keys(options).length > 0 ? { options } : {}),
        };
        try {
          checkWorkflowInput({ started_by: 'this-client', ...input }); // what the run would refuse is refused here, before connecting (the client names who starts it)
        } catch (err) {
          throw usageErrorOf(err);
        }
        await withClient(opts, async (client) => {
          const idReusePolicy = flags.reuseId ? 'ALLOW_DUPLICATE' : 'REJECT_DUPLICATE';
          const handle = await client
            .start(input, { workflowId: flags.id, taskQueue: flags.taskQueue, idReusePolicy })
            .catch(async (err: Error) => {
              if (err.name === 'WorkflowExecutionAlreadyStartedError') {
                const status = await client
                  .handle(flags.id!)
                  .describe()
                  .then((d) => d.status.name)
                  .catch(() => 'unknown');
                const running = status === 'RUNNING';
                throw new CliError(
                  `a run with id "${flags.id}" already exists (${status})`,
                  EXIT.usage,
                  running
                    ? `pick another --id, or omit it; see it with \`planner show ${shellArg(flags.id!)}\``
                    : 'pick another --id, omit it, or pass --reuse-id to start a new run under this id',
                );
              }
              throw err;
            });
          const url = client.uiUrl(handle.workflowId, handle.firstExecutionRunId);
          await warnOnIdleQueue(client, handle.workflowId);
          if (!flags.wait) {
            if (out.json)
              out.data({ workflowId: handle.workflowId, runId: handle.firstExecutionRunId, webUiUrl: url ?? null });
            else
              out.line(
                `Started ${handle.workflowId}\nWeb UI: ${url ?? '(unknown; set TEMPORAL_UI_URL)'}\nFollow: planner watch ${shellArg(handle.workflowId)}`,
              );
            return;
          }
          out.note(`Started ${handle.workflowId}  ${url ?? ''}`.trimEnd());
          let state: PlanningState;
          try {
            if ((await untilInterrupted(watchRun(client, handle.workflowId, out))) === null) return;
            state = await client.state(handle.workflowId);
          } catch (err) {
            throw await explainRun(client, err, handle.workflowId);
          }
          if (out.json) out.data({ ...stateView(state), runId: handle.firstExecutionRunId, webUiUrl: url ?? null });
          else out.line(['', ...renderState(stateView(state))].join('\n'));
          if (state.stage !== 'COMPLETED') process.exitCode = EXIT.planFailed;
        });
      }),
    );

  program
    .command('watch')
    .description(
      'print each change of a run as it happens (stage, plan version, steps, budget, questions) until it ends',
    )
    .argument('<id>', 'workflow id')
    .option('--no-prompt', 'never ask for answers here, even at a terminal (print the commands that answer instead)')
    .action(
      action(async (opts, id: string) => {
        const out = output(opts);
        const stage = await onRun(opts, id, async (client, wid) => {
          await warnOnIdleQueue(client, wid);
          return await untilInterrupted(
            watchRun(client, wid, out, {
              ndjson: out.json,
              print: (line) => out.line(line),
              ...(opts.prompt === false ? { interactive: false } : {}),
            }),
          );
        });
        if (stage === null) return;
        if (stage !== 'COMPLETED') process.exitCode = EXIT.planFailed;
      }),
    );

  program
    .command('answer')
    .description("answer a run's clarifying question: a number picks an option (1-based), anything else is free text")
    .argument('<id>', 'workflow id')
    .argument('<answer...>', 'option number or text')
    .action(
      action(async (opts, id: string, words: string[]) => {
        const raw = words.join(' ').trim();
        const answer = parseArg(
          ClarificationAnswerSchema,
          /^\d+$/.test(raw) ? { option: Number(raw) } : { text: raw },
          'answer',
          'give an option number (1, 2, …) or text',
        );
        const text = await onRun(opts, id, async (client, wid) => {
          if ('option' in answer) await refuseOwnWordsOption(client, wid, answer.option);
          return await client.answer(wid, answer);
        });
        const out = output(opts);
        if (out.json) out.data({ workflowId: id, answer: text });
        else out.line(`Answered ${id}: ${terminalSafe(text)}`);
      }),
    );

  program
    .command('approve')
    .description('approve the plan a run is waiting on')
    .argument('<id>', 'workflow id')
    .option('--comment <text>', 'a note kept in the audit')
    .option(
      '--version <n>',
      'the plan version you reviewed (as `planner show` printed it; default: the one awaiting approval now); any other is refused',
    )
    .option('--step <id>', 'under --approval per-step: approve the side-effecting step waiting for a person')
    .action(
      action(async (opts, id: string) => {
        const comment = parseArg(z.string().max(2_000).optional(), opts.comment, 'comment');
        const version = parseArg(PlanVersionArg, opts.version, 'plan version');
        const step = parseArg(StepArg, opts.step, 'step');
        const result = await onRun(opts, id, async (client, wid) =>
          step === undefined
            ? client.approve(wid, comment, await decidedVersion(client, wid, version))
            : client.approve(wid, comment, version, step),
        );
        const out = output(opts);
        if (out.json) out.data({ workflowId: id, result });
        else out.line(`${id}: ${result}`);
      }),
    );

  program
    .command('reject')
    .description('reject the plan a run is waiting on; the reason becomes feedback for the next version')
    .argument('<id>', 'workflow id')
    .requiredOption('--reason <text>', 'why (required)')
    .option(
      '--version <n>',
      'the plan version you reviewed (as `planner show` printed it; default: the one awaiting approval now); any other is refused',
    )
    .option('--step <id>', 'under --approval per-step: reject the side-effecting step waiting for a person (it fails)')
    .action(
      action(async (opts, id: string) => {
        const { reason } = parseArg(RejectSchema, { reason: opts.reason }, 'reason', 'say why with --reason "…"');
        const version = parseArg(PlanVersionArg, opts.version, 'plan version');
        const step = parseArg(StepArg, opts.step, 'step');
        const result = await onRun(opts, id, async (client, wid) =>
          step === undefined
            ? client.reject(wid, reason, await decidedVersion(client, wid, version))
            : client.reject(wid, reason, version, step),
        );
        const out = output(opts);
        if (out.json) out.data({ workflowId: id, result });
        else out.line(`${id}: ${result}`);
      }),
    );

  program
    .command('raise-budget')
    .description("add to a run's budget limits (a run in BUDGET_EXHAUSTED resumes)")
    .argument('<id>', 'workflow id')
    .option('--cost <usd>', 'add this many USD')
    .option('--tokens <n>', 'add this many tokens')
    .option('--calls <n>', 'add this many calls')
    .action(
      action(async (opts, id: string) => {
        const amounts = parseArg(
          z.object({ cost: Amount.optional(), tokens: Count.optional(), calls: Count.optional() }),
          { cost: opts.cost, tokens: opts.tokens, calls: opts.calls },
          'amount',
        );
        const raise = parseArg(
          RaiseBudgetSchema,
          { cost_usd: amounts.cost ?? 0, tokens: amounts.tokens ?? 0, calls: amounts.calls ?? 0 },
          'budget raise',
          'e.g. planner raise-budget <id> --calls 10',
        );
        const budget = await onRun(opts, id, (client, wid) => client.raiseBudget(wid, raise));
        const out = output(opts);
        if (out.json) out.data({ workflowId: id, budget: budgetView(budget) });
        else out.line(`${id}: limits raised. ${budgetLine(budgetView(budget))}`);
      }),
    );

  program
    .command('cancel')
    .description('cancel a run (Temporal cancellation: running steps are cancelled, the run ends CANCELLED)')
    .argument('<id>', 'workflow id')
    .option('--reason <text>', "why; kept in the run's history (`planner history` prints it)")
    .action(
      action(async (opts, id: string) => {
        const reason = parseArg(ReasonSchema.optional(), opts.reason, 'reason');
        await onRun(opts, id, async (client, wid) => {
          await requireRunning(client, wid);
          await client.cancel(wid, reason);
        });
        const out = output(opts);
        if (out.json) out.data({ workflowId: id, cancelRequested: true, reason: reason ?? null });
        else out.line(`Cancellation requested for ${id}${reason ? ` (reason: ${reason})` : ''}`);
      }),
    );

  program
    .command('terminate')
    .description(
      'end a run at once (Temporal termination: no step is cancelled cleanly and the run keeps no final state; prefer `cancel`)',
    )
    .argument('<id>', 'workflow id')
    .option('--reason <text>', "why; kept in the run's history (`planner history`, `planner show` print it)")
    .action(
      action(async (opts, id: string) => {
        const reason = parseArg(ReasonSchema.optional(), opts.reason, 'reason') ?? 'terminated with planner terminate';
        await onRun(opts, id, async (client, wid) => {
          await requireRunning(client, wid);
          await client.terminate(wid, reason);
        });
        const out = output(opts);
        if (out.json) out.data({ workflowId: id, terminated: true, reason });
        else out.line(`Terminated ${id} (reason: ${reason})`);
      }),
    );
}

/**
 * Follows until `watching` settles, or until Ctrl-C / SIGTERM: then null at once (the run goes on without its watcher),
 * the exit code that of the signal.
 */
async function untilInterrupted<T>(watching: Promise<T>): Promise<T | null> {
  const interrupt = onInterrupt();
  try {
    const first = await Promise.race([watching.then((value) => ({ value })), interrupt.signalled]);
    if (typeof first !== 'string') return first.value;
    process.stderr.write(`stopped watching (${first}); the run goes on\n`);
    process.exitCode = signalExitCode(first);
    watching.catch(() => undefined); // it ends with the connection
    return null;
  } finally {
    interrupt.dispose();
  }
}

/** An option that stands for one's own words ("Something else (describe it)") is refused: the words are the answer. */
async function refuseOwnWordsOption(client: PlannerClient, workflowId: string, option: number): Promise<void> {
  const pending = pendingInput(await client.state(workflowId));
  const picked = pending?.kind === 'clarification' ? pending.options[option - 1] : undefined;
  if (picked !== undefined && asksForOwnWords(picked)) {
    throw new CliError(
      `option ${option} ("${picked}") asks for your own words`,
      EXIT.usage,
      `answer with them: planner answer ${shellArg(workflowId)} "<what you need>"`,
    );
  }
}

/** Warns on stderr when no worker polls the running run's workflow task queue (src/cli/run-truth.ts). */
async function warnOnIdleQueue(client: PlannerClient, workflowId: string): Promise<void> {
  const queue = await runningQueue(client, workflowId);
  if (queue !== null) await warnIfNoWorker(client, queue);
}

/** A reason for a cancellation or termination: a line of text, kept in the run's history. */
const ReasonSchema = z.string().trim().min(1, 'give a reason, or leave out --reason').max(1_000);

async function requireRunning(client: PlannerClient, workflowId: string): Promise<void> {
  const { status } = await client.handle(workflowId).describe();
  if (status.name !== 'RUNNING')
    throw new CliError(
      `run ${workflowId} is already ${status.name}`,
      EXIT.usage,
      `see it with \`planner show ${shellArg(workflowId)}\``,
    );
}

export { action, explainRun, onRun };

function pick(source: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => source[k] !== undefined).map((k) => [k, source[k]]));
}
