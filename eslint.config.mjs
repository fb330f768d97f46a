// The core must stay runnable in plain Node and inside the DSH plugin: no editor, no DSH runtime.
import path from 'node:path';
import tseslint from 'typescript-eslint';

/**
 * The core's folders stand in floors, bottom up: a folder imports only folders of lower floors
 * (and itself), never one beside it or above it. The README's Architecture section draws this.
 */
const CORE_FLOORS = [
  ['json'],
  ['declaration', 'problems', 'scan'],
  ['mcp', 'skills'],
  ['import', 'settings', 'policy'],
  ['lsp', 'tools'],
  ['node'],
  ['app'],
];
const floorOf = new Map(CORE_FLOORS.flatMap((folders, floor) => folders.map((folder) => [folder, floor])));

/** The core folder (`json`, `mcp`, ...) a file lies in, or undefined outside src/core. */
function coreFolder(file) {
  const parts = path.relative(path.resolve('src/core'), file).split(path.sep);
  return parts.length > 1 && !parts[0].startsWith('..') ? parts[0] : undefined;
}

const coreFloors = {
  meta: { type: 'problem', schema: [], messages: { up: 'core/{{from}} (floor {{fromFloor}}) must not import core/{{to}} (floor {{toFloor}}): a core folder imports only folders of lower floors (see CORE_FLOORS in eslint.config.mjs).' } },
  create(context) {
    const from = coreFolder(context.filename);
    if (from === undefined) return {};
    const check = (node, source) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const to = coreFolder(path.resolve(path.dirname(context.filename), source));
      if (to === undefined || to === from) return;
      const fromFloor = floorOf.get(from);
      const toFloor = floorOf.get(to);
      if (fromFloor === undefined || toFloor === undefined || toFloor >= fromFloor) {
        context.report({ node, messageId: 'up', data: { from, to, fromFloor: String((fromFloor ?? -1) + 1), toFloor: String((toFloor ?? -1) + 1) } });
      }
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
      TSImportType: (node) => check(node, node.argument?.literal?.value ?? node.source?.value),
    };
  },
};

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
    files: ['src/core/**/*.ts'],
    plugins: { house: { rules: { 'core-floors': coreFloors } } },
    rules: { 'house/core-floors': 'error' },
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
  // The editor shows text from files and servers through one seam (src/extension/visible.ts),
  // which escapes control and bidi characters. The packaged .vsix keys its l10n bundles by a hash
  // of the English text (scripts/package-vsix.mjs), which vscode.l10n.t cannot read: every message
  // goes through src/extension/l10nLookup.ts. (One rule list per file: a later block would replace it.)
  ...((visibleSeam, l10nSeam) => [
    { files: ['src/extension/**/*.ts'], ignores: ['src/extension/visible.ts', 'src/extension/l10nLookup.ts'], rules: { 'no-restricted-syntax': ['error', visibleSeam, l10nSeam] } },
    { files: ['src/extension/visible.ts'], rules: { 'no-restricted-syntax': ['error', l10nSeam] } },
    { files: ['src/extension/l10nLookup.ts'], rules: { 'no-restricted-syntax': ['error', visibleSeam] } },
  ])({
    selector: "MemberExpression[object.object.name='vscode'][object.property.name='window'][property.name=/^(show(Information|Warning|Error)Message|showQuickPick)$/]",
    message: 'Show messages and quick picks through src/extension/visible.ts, which escapes what they quote from files and servers.',
  }, {
    selector: "MemberExpression[object.object.name='vscode'][object.property.name='l10n'][property.name='t']",
    message: 'Use l10n.t of src/extension/l10nLookup.ts: the packaged bundles are keyed by l10nKey, which vscode.l10n.t cannot read.',
  }),
  {
    // The pure core: file access, processes, the environment and the host store come in as
    // parameters; reading and writing live in the Node adapter layer, src/core/node. The use cases
    // of app/ (the top floor) get them as ports (app/ports.ts): they may name an adapter's types,
    // never call one.
    files: ['src/core/**/*.ts'],
    ignores: ['src/core/node/**'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [
          { name: 'vscode', message: 'The core must not depend on the editor.' },
          ...['fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'child_process', 'node:child_process', 'os', 'node:os'].map((name) => ({
            name, message: 'The pure core takes file access, processes and the home folder as parameters (app/: its ports); reading and writing belong in src/core/node.',
          })),
        ],
        patterns: [
          { group: ['@deepseek-ai/*'], message: 'No DSH runtime import: the host supplies DSH modules at run time.' },
          { group: ['**/extension/**'], message: 'The editor adapter depends on the core, never the reverse.' },
          { group: ['**/node/*', '!node:*'], allowTypeImports: true, message: 'The pure core does not call into the Node adapter layer: a use case gets it as a port (app/ports.ts), and may import its types only.' },
        ],
      }],
      'no-restricted-properties': ['error',
        { object: 'process', property: 'env', message: 'The pure core takes the environment as a parameter (app/: the env port).' },
        { object: 'process', property: 'cwd', message: 'The pure core takes the working directory as a parameter (app/: the cwd port).' },
      ],
    },
  },
);
