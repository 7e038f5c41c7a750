/**
 * MCP failures stay where they happen (issue 13, finding 10), against real stdio MCP server processes
 * (test/fixtures/effect-mcp-server.ts): a server that cannot start leaves the other catalogs serving; closing a hung
 * server leaves no process behind; an oversized result is a typed, permanent error on a live connection; a call that
 * crashes the server gives every call in flight a typed error and the next call a new server; the `_meta` key
 * reaches the server.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CatalogUnavailableError, StepOutcomeUnknownError } from '../../src/domain/errors';
import {
  createMcpPack,
  createMcpPacks,
  McpResultTooLargeError,
  McpServerUnavailableError,
  type McpPack,
  type StdioServerConfig,
} from '../../src/tools/mcp';
import { catalogsOf } from '../../src/worker';
import { projectRoot } from '../../src/project-root';
import { processAlive } from '../support/temporal';

const ROOT = projectRoot();
const SERVER = path.join(ROOT, 'test/fixtures/effect-mcp-server.ts');
const dir = mkdtempSync(path.join(os.tmpdir(), 'mcp-isolation-'));
const packs: McpPack[] = [];

function effectServer(env: Record<string, string> = {}, extra: Partial<StdioServerConfig> = {}): StdioServerConfig {
  return { command: process.execPath, args: ['--require', 'tsx/cjs', SERVER], env, cwd: ROOT, ...extra };
}

afterAll(async () => {
  await Promise.allSettled(packs.map((p) => p.close()));
});

test('a server that cannot start marks its catalog unavailable (typed, retryable) while the others keep serving', async () => {
  const logged: string[] = [];
  const made = await createMcpPacks(
    {
      mcpServers: {
        good: effectServer({ EFFECTS_FILE: path.join(dir, 'good.jsonl') }),
        bad: effectServer({ FAIL_START: '1' }),
      },
    },
    { log: (m) => logged.push(m) },
  );
  packs.push(...made);
  const [good, bad] = made;
  expect(bad!.unavailable).toBeInstanceOf(McpServerUnavailableError);
  expect(bad!.tools).toEqual([]);
  expect(logged.join('\n')).toMatch(/MCP server "bad" is unavailable \(cannot start\)[\s\S]*refusing to start/);
  expect(good!.unavailable).toBeUndefined();
  expect(await good!.connection.callTool('slow', { ms: 1 }, { idempotent: true })).toEqual({ slept: 1 });

  const catalogs = catalogsOf(made);
  expect(catalogs.get('good').map((t) => t.name)).toContain('apply_effect');
  const err = (() => {
    try {
      catalogs.get('bad');
    } catch (e) {
      return e;
    }
  })();
  expect(err).toBeInstanceOf(CatalogUnavailableError);
  expect(err).toMatchObject({
    code: 'PLAN-006',
    retryable: true,
    message: expect.stringMatching(/tool catalog "bad" is unavailable: MCP server "bad"/),
  });
});

test('closing a hung server (ignores stdin and SIGTERM, has a child) leaves no process behind', async () => {
  const pidFile = path.join(dir, 'hung.pid');
  const pack = await createMcpPack('hung', effectServer({ HANG: '1', PID_FILE: pidFile }, { close_grace_ms: 300 }));
  packs.push(pack);
  const [server, grandchild] = readFileSync(pidFile, 'utf8').trim().split(' ').map(Number);
  expect(processAlive(server!)).toBe(true);
  expect(processAlive(grandchild!)).toBe(true);
  const started = Date.now();
  await pack.close();
  expect(Date.now() - started).toBeLessThan(5_000);
  await new Promise((r) => setTimeout(r, 200));
  expect(processAlive(server!)).toBe(false);
  expect(processAlive(grandchild!)).toBe(false);
});

test('a result over max_result_bytes is a typed, non-retryable error, and the connection stays up', async () => {
  const pack = await createMcpPack('big', effectServer({}, { max_result_bytes: 1_000_000 }));
  packs.push(pack);
  const pid = pack.connection.pid;
  // 10 MB: over the SDK's own 10 MB read buffer too, which used to close the connection ("connection lost", retried).
  const huge = await pack.connection
    .callTool('big', { bytes: 10_500_000 }, { idempotent: true })
    .catch((e: unknown) => e);
  expect(huge).toBeInstanceOf(McpResultTooLargeError);
  expect(huge).toMatchObject({ code: 'PLAN-008', retryable: false, details: { max_bytes: 1_000_000 } });
  const over = await pack.connection
    .callTool('big', { bytes: 1_100_000 }, { idempotent: true })
    .catch((e: unknown) => e);
  expect(over).toBeInstanceOf(McpResultTooLargeError);
  expect(await pack.connection.callTool('big', { bytes: 10 }, { idempotent: true })).toBe('xxxxxxxxxx');
  expect(pack.connection.starts).toBe(1);
  expect(pack.connection.pid).toBe(pid);
});

test('a call that crashes the server fails every call in flight typed; the next call gets a new server', async () => {
  const effects = path.join(dir, 'crash.jsonl');
  const pack = await createMcpPack('crashy', effectServer({ EFFECTS_FILE: effects }));
  packs.push(pack);
  const conn = pack.connection;
  const sideEffect = conn
    .callTool('apply_effect', { text: 'in flight', delay_after_ms: 3_000 }, { idempotencyKey: 'k-1' })
    .catch((e: unknown) => e);
  const readOnly = conn.callTool('slow', { ms: 3_000 }, { idempotent: true }).catch((e: unknown) => e);
  await new Promise((r) => setTimeout(r, 300));
  const crash = await conn.callTool('crash', {}, { idempotent: false }).catch((e: unknown) => e);
  // The side-effecting call had acted: it is outcome-unknown, not retried blindly.
  expect(await sideEffect).toBeInstanceOf(StepOutcomeUnknownError);
  expect(await sideEffect).toMatchObject({ code: 'PLAN-014', retryable: false });
  expect(crash).toBeInstanceOf(StepOutcomeUnknownError);
  // The read-only call is safe to send again: it is retried once on the new server and answers.
  expect(await readOnly).toEqual({ slept: 3_000 });
  expect(readFileSync(effects, 'utf8').trim().split('\n')).toHaveLength(1);
  expect(await conn.callTool('slow', { ms: 1 }, { idempotent: true })).toEqual({ slept: 1 });
  expect(conn.starts).toBe(2);
});

test('the idempotency key travels in _meta; a keyed server dedupes and a lost keyed call is retryable', async () => {
  const effects = path.join(dir, 'keyed.jsonl');
  const pack = await createMcpPack('keyed', effectServer({ EFFECTS_FILE: effects, HONOUR_KEYS: '1' }));
  packs.push(pack);
  const tool = pack.tools.find((t) => t.spec.name === 'apply_effect')!;
  expect(tool.spec.idempotent).toBe(false);
  expect(tool.keyed).toBe(true); // from the tool's own _meta in tools/list
  const ctx = { idempotencyKey: 'wf:1.1:abc', heartbeat: () => undefined, signal: new AbortController().signal };
  expect((await tool.run({ text: 'once' }, ctx)).data).toEqual({ text: 'once', line: 1, key: 'wf:1.1:abc' });
  expect((await tool.run({ text: 'once' }, ctx)).data).toEqual({ text: 'once', line: 1, key: 'wf:1.1:abc' });
  expect(readFileSync(effects, 'utf8').trim().split('\n')).toHaveLength(1);

  const lost = tool
    .run({ text: 'lost', delay_after_ms: 3_000 }, { ...ctx, idempotencyKey: 'k-lost' })
    .catch((e: unknown) => e);
  await new Promise((r) => setTimeout(r, 500));
  process.kill(pack.connection.pid!, 'SIGKILL');
  expect(await lost).toBeInstanceOf(McpServerUnavailableError);
  expect(await lost).toMatchObject({ retryable: true });
  // The retry (same key) lands on a new server that finds the key: still one line for it.
  expect((await tool.run({ text: 'lost' }, { ...ctx, idempotencyKey: 'k-lost' })).data).toMatchObject({ line: 2 });
  expect(readFileSync(effects, 'utf8').trim().split('\n')).toHaveLength(2);
  expect(existsSync(effects)).toBe(true);
});
