/**
 * `planner demo "<goal>"` (`npm run demo -- "<goal>"`): runs one planning workflow end to end and prints its result
 * and Web UI link. Without TEMPORAL_ADDRESS (or --address) it starts or reuses the local dev server, and it always
 * runs the planner and tool workers in this process. It prints each change as the run makes it and, when the run
 * waits for a person, asks at a terminal or prints the command that answers (src/cli/watch.ts).
 */
import type { Command } from 'commander';
import { PlannerClient } from '../../client';
import { z } from 'zod';
import { cliConfig, output, parseArg, taskQueueFlag } from '../context';
import { shellArg } from '../safe-text';
import { onInterrupt, signalExitCode } from '../signals';
import { quietSdkLogs, resolveServer, startWorkers } from '../local-stack';
import { watchRun } from '../watch';
import { action } from './runs';

export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description(
      'run one goal end to end with in-process workers (starting the local dev server if needed) and print the result',
    )
    .argument('<goal...>', 'what to plan, e.g. "Get contaminated shipments from last week"')
    .option(
      '--task-queue <queue>',
      'the planner task queue its workers poll and its run uses (default: $PLANNER_TASK_QUEUE or durable-planner)',
    )
    .action(
      action(async (opts, goalWords: string[]) => {
        const goal = goalWords.join(' ').trim();
        const config = cliConfig();
        const taskQueue =
          parseArg(z.string().trim().min(1).max(1000).optional(), opts.taskQueue, 'task queue') ?? config.taskQueue;
        // The SDK's INFO and WARN lines (bundle sizes, worker states, tool workers without workflows) drown the result.
        quietSdkLogs();
        const { target, local } = await resolveServer(
          config,
          { address: opts.address, namespace: opts.namespace },
          (line) => console.log(line),
        );
        const running = await startWorkers(target, config, { taskQueue });
        const planner = await PlannerClient.connect(target, { config });
        // Ctrl-C or SIGTERM ends the demo at once, even while the run waits on a question.
        const interrupt = onInterrupt();
        try {
          const handle = await planner.start({ request: { goal } }, { taskQueue });
          console.log(`Started ${handle.workflowId} on ${target.address} (task queue ${taskQueue})`);
          // Watching shows each change and asks a terminal for any answer the run waits for (else prints the command).
          const watched = watchRun(planner, handle.workflowId, output(opts)).then(() => handle.result());
          const outcome = await running.workers.runUntil(
            Promise.race([watched.catch((err: Error) => err), interrupt.signalled]),
          );
          if (typeof outcome === 'string') {
            console.log(
              `Stopped (${outcome}). Run ${handle.workflowId} stays on the server, waiting for workers: \`planner dev${taskQueueFlag(taskQueue)}\` serves it, \`planner watch ${shellArg(handle.workflowId)}\` follows it.`,
            );
            process.exitCode = signalExitCode(outcome);
          } else if (outcome instanceof Error) {
            console.log(`Run failed: ${outcome.cause instanceof Error ? outcome.cause.message : outcome.message}`);
            process.exitCode = 1;
          } else {
            const { spent, limit } = outcome.budget;
            console.log(
              `${outcome.stage} · plan v${outcome.plan_version} (${outcome.plan_status}) · ${spent.calls}/${limit.calls} calls, ${spent.tokens} tokens, $${spent.cost_usd.toFixed(4)}`,
            );
            for (const step of outcome.steps) {
              console.log(
                `  ${step.id} ${step.tool} [${step.status}] ${step.items ?? '-'} item(s)  ${(step.preview ?? '').slice(0, 110)}`,
              );
            }
            for (const warning of outcome.warnings) console.log(`  warning: ${warning}`);
          }
          console.log(
            `Web UI: ${planner.uiUrl(handle.workflowId, handle.firstExecutionRunId) ?? '(no Web UI known; set TEMPORAL_UI_URL)'}`,
          );
          if (local?.started) {
            console.log(
              `The dev server keeps running (pid ${local.pid}) so the link works; stop it with: planner dev stop`,
            );
          }
        } finally {
          interrupt.dispose();
          await running.close();
          await planner.close();
        }
      }),
    );
}
