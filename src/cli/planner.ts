/**
 * `planner`: the operator's CLI. `planner --help` lists the commands; docs/cli.md documents them, the --json shapes
 * (src/cli/json-views.ts) and the exit codes (src/cli/context.ts: 0 ok, 1 error, 2 usage, 3 not found, 4 plan failed).
 */
import { Command, CommanderError } from 'commander';
import { packageVersion } from '../versioning';
import { EXIT, reportError } from './context';
import { registerAuditCommand } from './commands/audit';
import { registerCompletionCommand } from './commands/completion';
import { registerDemoCommand } from './commands/demo';
import { registerEditCommands } from './commands/edits';
import { registerReadCommands } from './commands/read';
import { registerRunCommands } from './commands/runs';
import { registerStepCommands } from './commands/steps';
import { registerStorageCommands } from './commands/storage';
import { registerTemporalCommands } from './commands/temporal';
import { registerToolCommands } from './commands/tools';
import { registerWorkerCommands } from './commands/workers';

export function buildProgram(): Command {
  // The bin is `durable-planner` (unique on npm); `planner` is its alias, which the project's own scripts use.
  const program = new Command('planner')
    .description('Plan and run goals as durable Temporal workflows, and inspect them (the durable-planner CLI).')
    .option(
      '--address <host:port>',
      'Temporal frontend (default: $TEMPORAL_ADDRESS, the envconfig profile, or localhost:7233)',
    )
    .option('--namespace <name>', 'Temporal namespace (default: $TEMPORAL_NAMESPACE or default)')
    .option('--json', 'print machine-readable JSON on stdout (the contract: docs/cli.md)')
    .option('--verbose', 'print stack traces of errors')
    // Not commander's .version(): that takes `--version` wherever it appears, and `approve <id> --version 2` means a plan version.
    .addHelpText('after', "\nRun `durable-planner --version` (or -V) for the package's version.")
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });
  registerRunCommands(program);
  registerStepCommands(program);
  registerEditCommands(program);
  registerReadCommands(program);
  registerAuditCommand(program);
  registerToolCommands(program);
  registerStorageCommands(program);
  registerWorkerCommands(program);
  registerDemoCommand(program);
  registerTemporalCommands(program);
  registerCompletionCommand(program);
  // Subcommands (`dev stop`, `temporal install`) too: every commander error must come back to main as an exit code.
  const all = (c: Command): Command[] => [c, ...c.commands.flatMap(all)];
  for (const command of all(program).slice(1)) command.exitOverride();
  return program;
}

export async function main(argv: readonly string[] = process.argv): Promise<number> {
  if (argv[2] === '--version' || argv[2] === '-V') {
    process.stdout.write(`${packageVersion()}\n`);
    return EXIT.ok;
  }
  const program = buildProgram();
  try {
    await program.parseAsync([...argv]);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end with code 0; everything else commander rejects is a usage error.
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    return reportError(err, argv.includes('--verbose'));
  }
}
