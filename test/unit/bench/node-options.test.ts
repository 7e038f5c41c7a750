import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { PLANNER_BIN, plannerNodeOptions } from '../../../bench/node-options';

const ROOT = path.resolve(__dirname, '..', '..', '..');

test('the planner bin runs with a young generation of 8 MB semi-spaces, read from its shebang', () => {
  expect(plannerNodeOptions()).toEqual(['--max-semi-space-size=8']);
});

test('the shebang is the one place of the Node options: the npm scripts and the Dockerfile run the bin itself', () => {
  const scripts = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
  for (const name of ['planner', 'demo', 'dev', 'worker']) expect(scripts[name]).toMatch(/^\.\/bin\/planner\.js\b/);
  for (const script of Object.values(scripts)) expect(script).not.toMatch(/--max-semi-space-size/);
  // docker-compose's workers run the image, whose entrypoint is the installed bin.
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1];
  expect(JSON.parse(entrypoint!)).toEqual(['node_modules/.bin/planner']);
  expect(dockerfile).not.toMatch(/--max-semi-space-size/);
});

test('the bin runs as an executable with its shebang options (env -S)', async () => {
  const { stdout } = await promisify(execFile)(PLANNER_BIN, ['--help'], { cwd: ROOT });
  expect(stdout).toMatch(/^Usage: planner/m);
});
