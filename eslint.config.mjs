// The core must stay runnable in plain Node and inside the DSH plugin: no editor, no DSH runtime.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'out/**', '.cache/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
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
);
