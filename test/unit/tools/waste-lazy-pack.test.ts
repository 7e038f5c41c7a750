/**
 * The waste pack as the default worker serves it (createLazyWastePack): its database is opened on the first tool
 * call, not when the worker starts, so a worker that never runs a waste step never starts PGlite (or connects to
 * DATABASE_URL). Seen here through a TCP listener standing in for the database server: it counts connections.
 */
import net from 'node:net';
import { createLazyWastePack } from '../../../src/tools/waste';

let server: net.Server;
let connections = 0;
let url: string;

beforeAll(async () => {
  server = net.createServer((socket) => {
    connections += 1;
    socket.destroy(); // not PostgreSQL: every open fails
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `postgres://planner@127.0.0.1:${(server.address() as net.AddressInfo).port}/waste`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const ctx = { idempotencyKey: 'k', heartbeat() {}, signal: new AbortController().signal };

test('nothing is opened until a tool runs; an open that failed is tried again by the next call', async () => {
  connections = 0;
  const pack = createLazyWastePack({ today: '2026-11-25', databaseUrl: url });
  expect(pack.tools.map((t) => t.spec.name)).toEqual([
    'shipments',
    'facilities',
    'contaminants-detected',
    'inspections',
  ]);
  await new Promise((r) => setTimeout(r, 200));
  expect(connections).toBe(0);

  const facilities = pack.tools.find((t) => t.spec.name === 'facilities')!;
  await expect(facilities.run({}, ctx)).rejects.toThrow();
  const afterFirst = connections;
  expect(afterFirst).toBeGreaterThan(0);
  await expect(facilities.run({}, ctx)).rejects.toThrow();
  expect(connections).toBeGreaterThan(afterFirst);
  await expect(pack.close()).resolves.toBeUndefined();
});

test('closing a pack that never opened its database does nothing', async () => {
  connections = 0;
  await createLazyWastePack({ today: '2026-11-25', databaseUrl: url }).close();
  expect(connections).toBe(0);
});
