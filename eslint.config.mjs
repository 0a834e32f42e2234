// The linter: ESLint's and typescript-eslint's recommended rules; layout is Prettier's job.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// The layers of src/, lowest first (docs/ARCHITECTURE.md, "Layers"): a module imports only from its own
// layer and those below. Each entry: the layer's files, and the folders and top-level modules of src/
// that sit above it. `npm test` runs this, so an import that runs back up fails the build.
const surfaces = ['api', 'admin', 'reports', 'docs'];
const top = ['app', 'metrics', 'server', 'shutdown', 'cli', 'bench-entry'];
const layers = [
  {
    files: ['src/paths.ts', 'src/config.ts'],
    above: ['runtime', 'http', 'db', 'filters', 'wire', 'queries', 'html', 'rules', 'auth', ...surfaces, ...top],
  },
  // How the processes run: V8's and the allocator's settings, the HTTP server (src/runtime/README.md).
  { files: ['src/runtime/**'], above: ['http', 'db', 'filters', 'wire', 'queries', 'html', 'rules', 'auth', ...surfaces, ...top] },
  { files: ['src/http/**'], above: ['db', 'filters', 'wire', 'queries', 'html', 'rules', 'auth', ...surfaces, ...top] },
  { files: ['src/db/**', 'db/**'], above: ['filters', 'wire', 'queries', 'html', 'rules', 'auth', ...surfaces, ...top] },
  { files: ['src/filters/**'], above: ['wire', 'queries', 'html', 'rules', 'auth', ...surfaces, ...top] },
  { files: ['src/wire/**'], above: ['queries', 'html', 'rules', 'auth', ...surfaces, ...top] },
  { files: ['src/queries/**'], above: ['html', 'rules', 'auth', ...surfaces, ...top] },
  { files: ['src/html/**'], above: ['rules', 'auth', ...surfaces, ...top] },
  { files: ['src/rules/**'], above: ['auth', ...surfaces, ...top] },
  { files: ['src/auth/**'], above: [...surfaces, ...top] },
  // The surfaces stand side by side; the printable reports reuse the admin pages' form helpers.
  { files: ['src/api/**'], above: ['admin', 'reports', 'docs', ...top] },
  { files: ['src/admin/**'], above: ['api', 'reports', 'docs', ...top] },
  { files: ['src/reports/**'], above: ['api', 'docs', ...top] },
  { files: ['src/docs/**'], above: ['api', 'admin', 'reports', ...top] },
  { files: ['src/app.ts', 'src/metrics.ts'], above: ['server', 'shutdown', 'cli'] },
];
const layerRules = layers.map(({ files, above }) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: `^(\\.\\.?/)+(src/)?(${above.join('|')})(/|$)`,
            message: 'This module sits below the one imported (docs/ARCHITECTURE.md, "Layers"): move the shared piece down instead.',
          },
        ],
      },
    ],
  },
}));

// The bench is a client of the service through one entry (src/bench-entry.ts).
const benchRule = {
  files: ['bench/**'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: '^\\.\\./src/(?!bench-entry$)',
            message: 'The bench reads the service through src/bench-entry.ts: export what it needs there.',
          },
        ],
      },
    ],
  },
};

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'bench-results/', 'screenshots/', '.data/', 'public/docs/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // `_name` marks an argument or binding kept for its position.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  { files: ['public/**/*.js'], languageOptions: { sourceType: 'script', globals: { ...globals.browser } } },
  ...layerRules,
  benchRule,
  prettier,
);
