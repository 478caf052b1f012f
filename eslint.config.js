import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

const at = (...globs) => globs.map((glob) => `${import.meta.dirname}/${glob}`);

/** The API side: modules that serve HTTP or start workflows (and the CLI that composes them). */
const apiSide = at(
  'src/api/**',
  'src/app/**',
  'src/cli/**',
  'src/**/*.routes.ts',
  'src/**/*.service.ts',
  'src/**/*.control.ts',
);

/**
 * What runs in a worker: workflows, activities, the worker, and every module of src/ not on the API
 * side. Not the reconciler (src/recovery/): it runs in a worker, as the recovery loop's activities,
 * yet writes schedules and pollers as the API does.
 */
const workerSide = at(
  'workflows/**',
  'activities/**',
  'worker/**',
  'src/*.ts',
  'src/!(api|app|cli|stack|recovery)/**/!(*.routes|*.service|*.control).ts',
);

/**
 * Production code: everything but the dev stack (`neoflow up`) and the CLI, which starts that stack
 * and funds keys from its dev wallet; the CLI is the only bridge between the two.
 */
const production = at('workflows/**', 'activities/**', 'worker/**', 'src/*.ts', 'src/!(stack|cli)/**');

export default tseslint.config(
  {
    // The typed client's generated half is the generator's code, checked by its staleness test.
    ignores: ['node_modules/', '.neoflow/', '**/dist/', 'coverage/', 'clients/typescript/src/generated/'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // types/: what a function's author sees; its globals (setTimeout → number) are not Node's.
        projectService: { allowDefaultProject: ['*.js', 'bin/*.js', 'types/*.d.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'] })],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/extensions': ['.ts', '.js'],
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'import-x/no-cycle': ['error', { maxDepth: 10 }],
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: workerSide,
              from: apiSide,
              message: 'Code that runs in a worker never imports modules that serve HTTP or start workflows.',
            },
            {
              target: at('src/!(api|app)/**'),
              from: at('src/api/{router,validate}.ts'),
              message:
                'Areas declare their routes with the route kit (src/api/route-kit.ts), which validates and answers.',
            },
            {
              target: production,
              from: at('src/stack/**'),
              message: 'Production code never imports the dev-only stack of `neoflow up`.',
            },
          ],
        },
      ],
      '@typescript-eslint/require-await': 'off',
      // One convention for constants: camelCase like every other binding (PascalCase for entities,
      // classes and what stands for a type).
      '@typescript-eslint/naming-convention': [
        'error',
        { selector: 'variable', modifiers: ['const'], format: ['camelCase', 'PascalCase'] },
      ],
    },
  },
  {
    // Matchers such as expect.any() are typed `any` by design.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/unbound-method': 'off',
      // Response bodies are JSON: tests read them loosely and assert on their shape.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      // Workflow code must stay deterministic: no clocks, randomness or Node APIs.
      'no-restricted-globals': ['error', 'setTimeout', 'setInterval', 'process'],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Use workflow time (Date is replayed deterministically).' },
        { object: 'Math', property: 'random', message: 'Use the workflow-safe uuid4() or side effects.' },
      ],
      // src/shared/ holds the plain values a workflow may use (no I/O). The recovery sweep names its
      // activities' type (the bundler refuses a value import of Node code in a workflow).
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'] },
            {
              regex: String.raw`^\.\./src/(?!shared/|recovery/reconciler-activities\.ts$)`,
            },
          ],
        },
      ],
    },
  },
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
);
