#!/usr/bin/env node
// The `planner` bin. The published package runs the compiled CLI in dist/. A checkout of the repository runs its
// TypeScript sources through tsx (a devDependency) instead, so what runs there is always the code being edited,
// never a stale build; without tsx (e.g. `npm install --omit=dev`) a checkout runs dist/ too (`npm run build`).
'use strict';
const { existsSync } = require('node:fs');
const path = require('node:path');

function resolvable(id) {
  try {
    require.resolve(id);
    return true;
  } catch {
    return false;
  }
}

function cliModule() {
  const sources = path.join(__dirname, '..', 'src', 'cli', 'planner.ts');
  if (existsSync(sources) && resolvable('tsx/cjs')) {
    require('tsx/cjs');
    return require(sources);
  }
  return require('../dist/cli/planner.js');
}

cliModule()
  .main(process.argv)
  .then((code) => process.exit(code));
