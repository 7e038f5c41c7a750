/**
 * Two projects: `unit` (pure logic, no Temporal server; the storage contract starts a throw-away PostgreSQL cluster,
 * test/support/postgres.ts) and `temporal` (workflows on a real Temporal dev server that
 * test/setup/global-setup.ts starts on free ports and global-teardown.ts stops).
 * Run one with `npx jest --selectProjects unit`.
 */
const transform = { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] };

module.exports = {
  testTimeout: 120_000,
  maxWorkers: 2,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform,
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
    },
    {
      displayName: 'temporal',
      testEnvironment: 'node',
      transform,
      testMatch: ['<rootDir>/test/temporal/**/*.test.ts'],
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
    },
  ],
};
