/**
 * Commands that run workers: `planner dev` (local dev server + workers; `planner dev stop` stops that server) and
 * `planner worker` (production). Both start workers through local-stack's startWorkers, which registers the search
 * attributes first.
 */
import type { Command } from 'commander';
import { z } from 'zod';
import { TOOL_QUEUES } from '../../config';
import { cliConfig, parseArg } from '../context';
import { LOCAL_SERVER_PID_FILE, stopLocalDevServer } from '../../dev/temporal-server';
import { quietSdkLogs, resolveServer, startWorkers } from '../local-stack';
import { action } from './runs';

const TaskQueue = z.string().trim().min(1).optional();
const ToolQueuesFlag = z.enum(TOOL_QUEUES).optional();
const TOOL_QUEUES_HELP = "planner: the packs' tools on the planner's task queue (one worker); split: each pack on its own queue (default: $PLANNER_TOOL_QUEUES or planner)";

export function registerWorkerCommands(program: Command): void {
  const dev = program
    .command('dev')
    .description('start (or reuse) the local Temporal dev server and run the workers in-process until Ctrl-C; `dev stop` stops the server')
    .option('--task-queue <queue>', 'planner task queue (default: $PLANNER_TASK_QUEUE or durable-planner)')
    .option('--tool-queues <planner|split>', TOOL_QUEUES_HELP)
    .action(
      action(async (opts) => {
        const config = cliConfig();
        const taskQueue = parseArg(TaskQueue, opts.taskQueue, 'task queue') ?? config.taskQueue;
        const toolQueues = parseArg(ToolQueuesFlag, opts.toolQueues, 'tool queues') ?? config.toolQueues;
        quietSdkLogs();
        const { target, local } = await resolveServer(config, { namespace: opts.namespace, local: true }, (line) => console.log(line));
        const running = await startWorkers(target, config, { taskQueue, toolQueues });
        console.log(`Temporal dev server: ${target.address}${local?.started ? ` (started, pid ${local.pid})` : ' (reused)'}`);
        console.log(`Web UI: ${target.webUiUrl ?? '(unknown)'}`);
        console.log(`Workers polling ${running.queues.join(', ')} (namespace ${target.namespace}). Ctrl-C to stop.`);
        console.log(`Try: planner start "Get contaminated shipments from last week" --wait`);
        try {
          await running.workers.run(); // Temporal's Runtime turns SIGINT/SIGTERM into a graceful shutdown
        } finally {
          await running.close();
        }
        if (local?.started) console.log(`The dev server keeps running (pid ${local.pid}); stop it with: planner dev stop`);
      }),
    );
  dev
    .command('stop')
    .description('stop the background dev server that `planner dev` or the demo started')
    .action(
      action(async () => {
        const pid = await stopLocalDevServer();
        console.log(pid ? `Stopped the Temporal dev server (pid ${pid}).` : `No dev server recorded in ${LOCAL_SERVER_PID_FILE}.`);
      }),
    );

  program
    .command('worker')
    .description('run the planner and tool workers against TEMPORAL_ADDRESS (or --address) until stopped')
    .option('--task-queue <queue>', 'planner task queue (default: $PLANNER_TASK_QUEUE or durable-planner)')
    .option('--tool-queues <planner|split>', TOOL_QUEUES_HELP)
    .action(
      action(async (opts) => {
        const config = cliConfig();
        const taskQueue = parseArg(TaskQueue, opts.taskQueue, 'task queue') ?? config.taskQueue;
        const toolQueues = parseArg(ToolQueuesFlag, opts.toolQueues, 'tool queues') ?? config.toolQueues;
        quietSdkLogs('WARN');
        const { target } = await resolveServer(config, { address: opts.address, namespace: opts.namespace, local: false }, () => undefined);
        const running = await startWorkers(target, config, { taskQueue, toolQueues }).catch((err: Error) => {
          throw new Error(`cannot start workers on ${target.address}: ${err.message}`);
        });
        console.log(`Workers polling ${running.queues.join(', ')} on ${target.address} (namespace ${target.namespace}). Ctrl-C to stop.`);
        try {
          await running.workers.run();
        } finally {
          await running.close();
        }
      }),
    );
}
