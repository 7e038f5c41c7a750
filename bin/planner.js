#!/usr/bin/env -S node --max-semi-space-size=8
// The `planner` bin. It runs with V8's young generation at half its default (8 MB semi-spaces, not 16): a planner
// worker allocates about twice what a plain Temporal worker does per run, and with the default young generation its
// peak RSS went over 1.2x a plain worker's in 6 bench rounds of 10, with this in 1 of 10 (twice), at no measurable
// CPU cost (docs/performance.md). This line is the one place of the planner's Node options: npm scripts, the
// Dockerfile's entrypoint and the bench run the bin itself or read it from here (`node bin/planner.js` would skip it).
//
// The published package runs the compiled CLI in dist/. A checkout of the repository runs its TypeScript sources
// through tsx (a devDependency) instead, so what runs there is always the code being edited, never a stale build;
// without tsx (e.g. `npm install --omit=dev`) a checkout runs dist/ too (`npm run build`).
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
