/** `planner tools [--catalog c]`: the catalogs a planner worker started here would serve, with each tool's params. */
import type { Command } from 'commander';
import { z } from 'zod';
import { TOOL_QUEUES } from '../../config';
import { specsOf } from '../../tools/tool';
import { defaultToolPacks, servedPacks } from '../../worker';
import { CliError, EXIT, cliConfig, output, parseArg } from '../context';
import { choiceOption } from '../completion';
import { renderCatalogs, toolView, type CatalogView } from '../tool-catalog';
import { action } from './runs';

const Flags = z.object({
  catalog: z.string().trim().min(1).max(200).optional(),
  taskQueue: z.string().trim().min(1).max(1000).optional(),
  toolQueues: z.enum(TOOL_QUEUES).optional(),
});

export function registerToolCommands(program: Command): void {
  program
    .command('tools')
    .description(
      "what each tool catalog offers, as `planner worker` started here serves it (this folder's planner.config.json): tools, params, side effects, task queue",
    )
    .option('--catalog <name>', 'only this catalog (a run names it with `planner start --catalog`)')
    .option(
      '--task-queue <queue>',
      'the planner task queue the worker would use (default: $PLANNER_TASK_QUEUE or durable-planner)',
    )
    .addOption(
      choiceOption(
        '--tool-queues <mode>',
        'as for `planner worker` (default: $PLANNER_TOOL_QUEUES or planner)',
        TOOL_QUEUES,
      ),
    )
    .action(
      action(async (opts) => {
        const out = output(opts);
        const flags = parseArg(
          Flags,
          { catalog: opts.catalog, taskQueue: opts.taskQueue, toolQueues: opts.toolQueues },
          'option',
          'see `planner tools --help`',
        );
        const config = cliConfig();
        const packs = await defaultToolPacks(config);
        let views: CatalogView[];
        try {
          views = servedPacks(packs, flags.taskQueue ?? config.taskQueue, flags.toolQueues ?? config.toolQueues).map(
            (p) => ({
              catalog: p.catalog,
              unavailable: p.unavailable ? p.unavailable.message : null,
              tools: p.unavailable ? [] : specsOf(p.tools).map(toolView),
            }),
          );
        } finally {
          await Promise.all(packs.map((p) => p.close().catch(() => undefined)));
        }
        if (flags.catalog !== undefined) {
          views = views.filter((v) => v.catalog === flags.catalog);
          if (views.length === 0) {
            const known = packs.map((p) => p.catalog).join(', ');
            throw new CliError(
              `no tool catalog "${flags.catalog}" here`,
              EXIT.notFound,
              `the catalogs are ${known}; an MCP server's catalog comes from planner.config.json (PLANNER_CONFIG)`,
            );
          }
        }
        if (out.json) out.data(flags.catalog !== undefined ? views[0] : views);
        else out.line(renderCatalogs(views).join('\n'));
      }),
    );
}
