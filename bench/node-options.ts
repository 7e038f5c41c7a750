/**
 * The node options the `planner` bin runs with: those of its shebang (bin/planner.js), their one place (npm scripts
 * and the Dockerfile run the bin itself). The bench gives them to the planner's worker process, since that is what `planner worker` runs.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const PLANNER_BIN = path.resolve(__dirname, '..', 'bin', 'planner.js');

export function plannerNodeOptions(bin = PLANNER_BIN): string[] {
  const shebang = readFileSync(bin, 'utf8').split('\n', 1)[0]!;
  const options = /^#!\/usr\/bin\/env -S node(?:\s+(.*))?$/.exec(shebang);
  if (!options) throw new Error(`${bin}: the first line is not "#!/usr/bin/env -S node [options]"`);
  return options[1]?.trim().split(/\s+/) ?? [];
}
