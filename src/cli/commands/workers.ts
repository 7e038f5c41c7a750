/**
 * Commands that run workers: `planner dev` (local dev server + workers; `planner dev stop` stops that server) and
 * `planner worker` (production). Both start workers through local-stack's startWorkers, which registers the search
 * attributes first.
 */
import type { Command } from 'commander';
import { z } from 'zod';
import { MetricsPortSchema, TOOL_QUEUES, type PlannerConfig } from '../../config';
import { cliConfig, parseArg, taskQueueFlag } from '../context';
import { choiceOption } from '../completion';
import { LOCAL_SERVER_PID_FILE, stopLocalDevServer } from '../../dev/temporal-server';
import { quietSdkLogs, resolveServer, startWorkers } from '../local-stack';
import { action } from './runs';
import { collectGarbage, RetentionSchema } from './storage';
import { openStorage, storeLocation } from '../../store/storage';
import { PlannerClient } from '../../client';
import type { TemporalTarget } from '../../temporal-connection';

const GC_EVERY_MS = 6 * 3_600_000;

/** `--gc-older-than`: one collection now and one every GC_EVERY_MS; a failed one is reported and retried next time. */
function collectGarbagePeriodically(
  config: PlannerConfig,
  target: TemporalTarget,
  retentionMs: number,
): { stop(): Promise<void> } {
  const storage = openStorage(config);
  const client = PlannerClient.connect(target, { config }); // to see which runs are open: their values are kept
  client.catch(() => undefined); // reported by each collection
  let running: Promise<void> = Promise.resolve();
  const collect = () => {
    running = client
      .then((c) => collectGarbage(storage, retentionMs, c))
      .then(
        ({ cutoff, report }) =>
          console.log(
            `gc: removed ${report.values} value(s) and ${report.ledgerEntries} ledger entries last written before ${cutoff.toISOString()}`,
          ),
        (err: Error) => console.error(`gc failed: ${err.message}`),
      );
  };
  collect();
  const timer = setInterval(collect, GC_EVERY_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
      await storage.close();
      await client.then((c) => c.close()).catch(() => undefined);
    },
  };
}

const TaskQueue = z.string().trim().min(1).optional();
const ToolQueuesFlag = z.enum(TOOL_QUEUES).optional();
const TOOL_QUEUES_HELP =
  "planner: the packs' tools on the planner's task queue (one worker); split: each pack on its own queue (default: $PLANNER_TOOL_QUEUES or planner)";

/** The options `dev` and `worker` share: what the workers serve, and where their metrics are. */
function withWorkerOptions(command: Command): Command {
  return command
    .option('--task-queue <queue>', 'planner task queue (default: $PLANNER_TASK_QUEUE or durable-planner)')
    .option(
      '--metrics-port <port>',
      'serve Prometheus metrics on this port at /metrics (default: $PLANNER_METRICS_PORT, else none)',
    )
    .addOption(choiceOption('--tool-queues <mode>', TOOL_QUEUES_HELP, TOOL_QUEUES));
}

/** withWorkerOptions' flags, each else its variable in `config`. */
function workerSettings(opts: Record<string, unknown>, config: PlannerConfig) {
  return {
    taskQueue: parseArg(TaskQueue, opts.taskQueue, 'task queue') ?? config.taskQueue,
    toolQueues: parseArg(ToolQueuesFlag, opts.toolQueues, 'tool queues') ?? config.toolQueues,
    metricsPort:
      parseArg(
        MetricsPortSchema.optional(),
        opts.metricsPort,
        'metrics port',
        'Give --metrics-port a TCP port from 1 to 65535.',
      ) ?? config.telemetry.metricsPort,
  };
}

function metricsLine(port: number | undefined): string {
  return port === undefined ? '' : ` Metrics: http://localhost:${port}/metrics.`;
}

/** The command `planner dev` suggests once its workers poll: a run on their task queue. */
export function devTryLine(taskQueue: string): string {
  return `Try: planner start "Get contaminated shipments from last week" --wait${taskQueueFlag(taskQueue)}`;
}

export function registerWorkerCommands(program: Command): void {
  const dev = withWorkerOptions(
    program
      .command('dev')
      .description(
        'start (or reuse) the local Temporal dev server and run the workers in-process until Ctrl-C; `dev stop` stops the server',
      ),
  ).action(
    action(async (opts) => {
      const config = cliConfig();
      const { taskQueue, toolQueues, metricsPort: port } = workerSettings(opts, config);
      quietSdkLogs('ERROR', port);
      const { target, local } = await resolveServer(config, { namespace: opts.namespace, local: true }, (line) =>
        console.log(line),
      );
      const running = await startWorkers(target, config, { taskQueue, toolQueues, warmUp: true });
      void running.warmed?.then((line) => console.log(line));
      console.log(
        `Temporal dev server: ${target.address}${local?.started ? ` (started, pid ${local.pid})` : ' (reused)'}`,
      );
      console.log(`Web UI: ${target.webUiUrl ?? '(unknown)'}`);
      console.log(
        `Workers polling ${running.queues.join(', ')} (namespace ${target.namespace}).${metricsLine(port)} Ctrl-C to stop.`,
      );
      console.log(`Store: ${storeLocation(config)}`);
      if (running.workers.version)
        console.log(
          `Worker version ${running.workers.version.buildId} (deployment ${running.workers.version.deploymentName}) is current: new runs land on it.`,
        );
      console.log(devTryLine(taskQueue));
      try {
        await running.workers.run(); // Temporal's Runtime turns SIGINT/SIGTERM into a graceful shutdown
      } finally {
        await running.close();
      }
      if (local?.started)
        console.log(`The dev server keeps running (pid ${local.pid}); stop it with: planner dev stop`);
    }),
  );
  dev
    .command('stop')
    .description('stop the background dev server that `planner dev` or the demo started')
    .action(
      action(async () => {
        const pid = await stopLocalDevServer();
        console.log(
          pid ? `Stopped the Temporal dev server (pid ${pid}).` : `No dev server recorded in ${LOCAL_SERVER_PID_FILE}.`,
        );
      }),
    );

  withWorkerOptions(
    program
      .command('worker')
      .description('run the planner and tool workers against TEMPORAL_ADDRESS (or --address) until stopped'),
  )
    .option(
      '--gc-older-than <duration>',
      'also run `planner gc --older-than <duration>` at start and every 6 hours, e.g. 30d',
    )
    .action(
      action(async (opts) => {
        const config = cliConfig();
        const { taskQueue, toolQueues, metricsPort: port } = workerSettings(opts, config);
        const retentionMs =
          opts.gcOlderThan === undefined ? undefined : parseArg(RetentionSchema, opts.gcOlderThan, '--gc-older-than');
        quietSdkLogs('WARN', port);
        const { target } = await resolveServer(
          config,
          { address: opts.address, namespace: opts.namespace, local: false },
          () => undefined,
        );
        const running = await startWorkers(target, config, {
          taskQueue,
          toolQueues,
          makeCurrent: 'if-none',
          warmUp: true,
        }).catch((err: Error) => {
          throw new Error(`cannot start workers on ${target.address}: ${err.message}`);
        });
        void running.warmed?.then((line) => console.log(line));
        console.log(
          `Workers polling ${running.queues.join(', ')} on ${target.address} (namespace ${target.namespace}).${metricsLine(port)} Ctrl-C to stop.`,
        );
        console.log(`Store: ${storeLocation(config)}`);
        const { version } = running.workers;
        if (version) {
          console.log(
            `Worker version ${version.buildId} of deployment ${version.deploymentName}: runs it starts are pinned to it.`,
          );
          void running.workers.current.then((current) => {
            if (current === version.buildId)
              console.log(`It is the deployment's current version: new runs land on it.`);
            else if (current) {
              console.log(
                `New runs land on the current version, ${current}. To send them here: temporal worker deployment set-current-version --deployment-name ${version.deploymentName} --build-id ${version.buildId}`,
              );
            }
          });
        }
        const gc = retentionMs === undefined ? undefined : collectGarbagePeriodically(config, target, retentionMs);
        try {
          await running.workers.run();
        } finally {
          await gc?.stop();
          await running.close();
        }
      }),
    );
}
