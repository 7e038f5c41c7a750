import { rmSync } from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  const state = globalThis.__plannerTestServer;
  if (!state) return;
  await state.server.stop();
  rmSync(state.dir, { recursive: true, force: true });
}
