// The core must stay runnable in plain Node and inside the DSH plugin: no editor, no DSH runtime.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'out/**', '.cache/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
  },
  {
    // The integration suites run inside the extension host as CommonJS, against the bundle.
    files: ['test/integration/**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
  },
  {
    files: ['test/integration/**/*.js', 'test/e2e/**/*.mjs'],
    rules: {
      'no-restricted-syntax': ['error', {
        selector: "CallExpression[callee.name='require'][arguments.0.value=/(^|\\/)src\\//]",
        message: 'Integration and e2e tests exercise the bundled extension (dist/), not the sources.',
      }, {
        selector: "ImportDeclaration[source.value=/(^|\\/)src\\//]",
        message: 'Integration and e2e tests exercise the bundled extension (dist/), not the sources.',
      }],
    },
  },
  {
    files: ['src/core/**/*.ts', 'src/cli/**/*.ts', 'src/dsh-plugin/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: 'The core, the CLI and the DSH plugin must not depend on the editor.' }],
        patterns: [
          { group: ['@deepseek-ai/*'], message: 'No DSH runtime import: the host supplies DSH modules at run time.' },
          { group: ['**/extension/**'], message: 'The editor adapter depends on the core, never the reverse.' },
        ],
      }],
    },
  },
  {
    // The pure core: file access, processes, the environment and the host store come in as
    // parameters; reading and writing live in the Node adapter layer, src/core/node.
    files: ['src/core/**/*.ts'],
    ignores: ['src/core/node/**'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [
          { name: 'vscode', message: 'The core must not depend on the editor.' },
          ...['fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'child_process', 'node:child_process'].map((name) => ({
            name, message: 'The pure core takes file access as a parameter; reading and writing belong in src/core/node.',
          })),
        ],
        patterns: [
          { group: ['@deepseek-ai/*'], message: 'No DSH runtime import: the host supplies DSH modules at run time.' },
          { group: ['**/extension/**'], message: 'The editor adapter depends on the core, never the reverse.' },
          { group: ['**/node/*', '!node:*'], message: 'The pure core does not call into the Node adapter layer; the adapter calls the core.' },
        ],
      }],
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'The pure core takes the environment as a parameter.' }],
    },
  },
);
