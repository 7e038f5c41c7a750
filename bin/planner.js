#!/usr/bin/env node
// The `planner` bin: the project runs TypeScript through tsx, so register it and hand over to src/cli/planner.ts.
'use strict';
require('tsx/cjs');
const { main } = require('../src/cli/planner.ts');
main(process.argv).then((code) => process.exit(code));
