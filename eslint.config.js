// Lint: typescript-eslint recommended plus the layering rules of DESIGN.md as no-restricted-imports.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const io = ['node:*', 'fs', 'path', 'koa', '@koa/*', 'better-sqlite3', 'mongodb', '@nats-io/*', 'viem', 'viem/*', 'bitcoinjs-lib', 'pino'];

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    files: ['machines/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: io, message: 'machines/ are pure: no I/O, drivers or servers (DESIGN.md rules of the core).' },
          { group: ['**/actors/**', '**/http/**'], message: 'machines/ may import only xstate and types from src/.' },
        ],
      }],
      'no-restricted-syntax': ['error',
        { selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']", message: 'Time comes from context or events in machines.' },
        { selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']", message: 'No randomness in machines.' },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    // The composition roots are where the layers meet (DESIGN.md: composition roots build, entry points run).
    ignores: ['src/main.ts', 'src/service.ts', 'src/cluster/worker.ts', 'src/cluster/edge.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['**/actors/**', '**/http/**', '**/machines/**'], message: 'src/ must not import actors/, http/ or machines/.' }],
      }],
    },
  },
  {
    files: ['actors/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        // The CLI is an entry point; what it shares with the service (admin wire shapes) lives in src/protocol/.
        patterns: [{ group: ['**/src/cli/**', '**/http/**'], message: 'actors/ may import machines/ and src/ (not its CLI) only; shared wire shapes are in src/protocol/.' }],
      }],
    },
  },
  {
    files: ['http/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['**/actors/**', '**/machines/**'], message: 'http/ reaches actors only through the bus.' }],
      }],
    },
  },
  {
    files: ['src/**/*.ts', 'machines/**/*.ts', 'actors/**/*.ts', 'http/**/*.ts'],
    ignores: ['src/config.ts'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Only src/config.ts reads process.env.' }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'src/main.ts', 'src/cli/**/*.ts', 'src/cluster/local.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    // Black-box tests read wire JSON whose shape the schemas (not the type system) check.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
