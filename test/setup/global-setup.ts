/**
 * Starts one real Temporal dev server (free ports, SQLite state in a temp folder) for the `temporal` test project,
 * and bundles the workflow code once so every test worker starts fast. Tests read the TEMPORAL_TEST_* variables.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { ensureTemporalCli } from '../../src/dev/temporal-binaries';
import { startDevServer, type DevServer } from '../../src/dev/temporal-server';
import { bundleWorkflows } from '../../src/worker';

declare global {
  var __plannerTestServer: { server: DevServer; dir: string } | undefined;
}

export default async function globalSetup(): Promise<void> {
  const cli = ensureTemporalCli(loadConfig(), (line) => console.log(line));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'planner-test-'));
  const server = await startDevServer({
    binaries: loadConfig(),
    dbFile: path.join(dir, 'temporal.db'),
    logFile: path.join(dir, 'server.log'),
  });
  globalThis.__plannerTestServer = { server, dir };

  const { code } = await bundleWorkflows(require.resolve('../fixtures/workflows'));
  const bundlePath = path.join(dir, 'workflow-bundle.js');
  writeFileSync(bundlePath, code);

  process.env.TEMPORAL_TEST_ADDRESS = server.address;
  process.env.TEMPORAL_TEST_UI_URL = server.uiUrl;
  process.env.TEMPORAL_TEST_DIR = dir;
  process.env.PLANNER_TEST_BUNDLE = bundlePath;
  process.env.TEMPORAL_CLI_PATH = cli;
}
