/** `planner completion bash|zsh|fish`: prints a shell completion script for the program (docs/cli.md, Shell completion). */
import type { Command } from 'commander';
import { z } from 'zod';
import { SHELLS, completionScript } from '../completion';
import { parseArg } from '../context';
import { action } from './runs';

export function registerCompletionCommand(program: Command): void {
  program
    .command('completion')
    .description(
      `print a shell completion script (${SHELLS.join(', ')}): e.g. source <(durable-planner completion bash)`,
    )
    .argument('<shell>', SHELLS.join(' | '))
    .action(
      action(async (_opts, shell: string) => {
        const parsed = parseArg(z.enum(SHELLS), shell, 'shell', `give one of ${SHELLS.join(', ')}`);
        process.stdout.write(completionScript(program, parsed));
      }),
    );
}
