// ESLint (flat config) with typescript-eslint's type information. Two rules matter most here:
//  - no-floating-promises everywhere: an unawaited promise in a worker or the CLI loses its error;
//  - workflow purity: workflow code may import only the workflow API, Temporal's common types, zod, the
//    OpenTelemetry API (spans go out through the interceptors' sink, replay-aware), the contract
//    (src/api), the domain (src/domain) and the step kinds' workflow parts (src/step-kinds); activities only as types.
//    Anything else could do I/O or break replay.
// A third keeps the layers (docs/contributing.md, "Layers"): no import from a lower layer up.
const tseslint = require('typescript-eslint');

const PACKAGES = ['@temporalio/workflow', '@temporalio/common', 'zod', '@opentelemetry/api'].map((name) =>
  name.replace('/', '\\/'),
);

/** A rule refusing every import of a workflow file except the packages above and the relative paths in `allowed`. */
function workflowImports(allowed) {
  return [
    'error',
    {
      patterns: [
        {
          regex: `^(?!(${[...PACKAGES, ...allowed].map((a) => `${a}$`).join('|')}))`,
          allowTypeImports: true,
          message:
            'Workflow code may import only @temporalio/workflow, @temporalio/common, zod, @opentelemetry/api, src/api and src/domain (activities as types only).',
        },
      ],
    },
  ];
}

/**
 * A rule refusing imports of the src/ folders and modules in `above` from a lower layer: any import of them, or with
 * `types: 'allowed'` a value import only (a type import ties nothing at run time and makes no cycle of modules).
 */
function noImportsUp(above, layer, { types }) {
  return [
    'error',
    {
      patterns: [
        {
          regex: `^(\\.\\./)+(src/)?(${above.join('|')})(/|$)`,
          allowTypeImports: types === 'allowed',
          message: `${layer} may not import ${types === 'allowed' ? 'values ' : ''}from ${above.join(', ')}: a layer above it (docs/contributing.md, "Layers").`,
        },
      ],
    },
  ];
}

const ABOVE_SERVICES = ['workflows', 'planners', 'activities', 'cli', 'worker', 'client'];

module.exports = tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.temporal/**', 'coverage/**', 'test-output/**', 'test/lint-fixtures/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: __dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
  {
    // src/workflows/*.ts: the workflow's own modules, the contract and the domain.
    files: ['src/workflows/*.ts', 'test/lint-fixtures/workflows/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': workflowImports([
        '\\./[\\w-]+(/[\\w-]+)?',
        '\\.\\./(api|domain)(/[\\w-]+)?',
        '\\.\\./step-kinds',
      ]),
    },
  },
  {
    // The step kinds' workflow parts (src/step-kinds/index.ts, kind.ts, <kind>/kind.ts): zod and types only, and
    // the registry's own kinds; a kind's activities (./activities.ts) as types.
    files: ['src/step-kinds/index.ts', 'src/step-kinds/kind.ts', 'src/step-kinds/*/kind.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': workflowImports(['\\./[\\w-]+/kind', '\\.\\./kind', '\\./kind']),
    },
  },
  {
    // src/workflows/phases/*.ts: one level deeper.
    files: ['src/workflows/phases/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': workflowImports([
        '\\./[\\w-]+',
        '\\.\\./[\\w-]+',
        '\\.\\./\\.\\./(api|domain)(/[\\w-]+)?',
      ]),
    },
  },
  {
    // The domain: pure planning logic under everything (workflow code runs it); nothing of the planner above it.
    files: ['src/domain/**/*.ts', 'test/lint-fixtures/layers/domain/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': noImportsUp(
        ['api', 'store', 'tools', 'llm', 'telemetry', 'dev', 'config', ...ABOVE_SERVICES],
        'src/domain',
        { types: 'refused' },
      ),
    },
  },
  {
    // The contract (what clients see): the domain only.
    files: ['src/api/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': noImportsUp(
        ['store', 'tools', 'llm', 'telemetry', 'dev', 'config', ...ABOVE_SERVICES],
        'src/api',
        { types: 'refused' },
      ),
    },
  },
  {
    // The services (storage, tools, the LLM client, telemetry): no value from the planners, activities, workflows or CLI.
    files: [
      'src/store/**/*.ts',
      'src/tools/**/*.ts',
      'src/llm/**/*.ts',
      'src/telemetry/**/*.ts',
      'test/lint-fixtures/layers/tools/*.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': noImportsUp(
        ABOVE_SERVICES,
        'a service (store, tools, llm, telemetry)',
        {
          types: 'allowed',
        },
      ),
    },
  },
  {
    // The planners: no value from the activities that run them, the workflows or the CLI.
    files: ['src/planners/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': noImportsUp(
        ['workflows', 'activities', 'cli', 'worker', 'client'],
        'src/planners',
        { types: 'allowed' },
      ),
    },
  },
);
