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

/** Names every Node script has (ES2022 and Node's own), for the .mjs tests and their harness. */
const NODE_GLOBALS = Object.fromEntries([
  'process', 'Buffer', 'console', 'global', 'globalThis', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate',
  'queueMicrotask', 'structuredClone', 'URL', 'URLSearchParams', 'TextEncoder', 'TextDecoder', 'AbortController', 'AbortSignal', 'fetch', 'Response', 'Request',
  'Headers', 'FormData', 'Blob', 'performance', 'EventTarget', 'Event', 'WebAssembly', 'atob', 'btoa', 'crypto', 'MessageChannel', 'BroadcastChannel',
].map((name) => [name, 'readonly']));
/** Mocha's globals (test/e2e runs under mocha; the DSH tier under node:test, which imports its own). */
/** Import patterns every core, CLI and plugin block forbids (a block's no-restricted-imports replaces an earlier one's, so each spreads these). */
const NOT_FROM_CORE = [
  { group: ['@deepseek-ai/*'], message: 'No DSH runtime import: the host supplies DSH modules at run time.' },
  { group: ['**/extension/**'], message: 'The editor adapter depends on the core, never the reverse.' },
];

const MOCHA_GLOBALS = Object.fromEntries(['describe', 'it', 'before', 'after', 'beforeEach', 'afterEach', 'context', 'specify'].map((name) => [name, 'readonly']));
/** What a function that runs in the editor's page (page.evaluate and the like) may name. */
const BROWSER_GLOBALS = ['document', 'window', 'navigator', 'getComputedStyle', 'HTMLElement', 'Element', 'Node', 'NodeFilter', 'MutationObserver', 'KeyboardEvent', 'MouseEvent', 'location', 'requestAnimationFrame'];
const PAGE_FUNCTIONS = new Set(['evaluate', 'evaluateHandle', 'waitForFunction', '$eval', '$$eval', 'addInitScript']);

/** A browser name is only defined in a function Playwright runs in the page: anywhere else it is an undefined name. */
const browserOnlyInPage = {
  meta: { type: 'problem', schema: [], messages: { outside: '{{name}} exists only in the page: use it inside a function passed to page.evaluate (or waitForFunction, $eval).' } },
  create(context) {
    const inPage = (node) => {
      for (let n = node.parent; n; n = n.parent) {
        const call = n.parent;
        if ((n.type === 'ArrowFunctionExpression' || n.type === 'FunctionExpression') && call?.type === 'CallExpression' && call.arguments.includes(n)
          && call.callee.type === 'MemberExpression' && PAGE_FUNCTIONS.has(call.callee.property.name)) return true;
      }
      return false;
    };
    return {
      'Program:exit'(program) {
        const scope = context.sourceCode.getScope(program);
        for (const variable of scope.variables.filter((v) => BROWSER_GLOBALS.includes(v.name) && v.defs.length === 0)) {
          for (const ref of variable.references) if (!inPage(ref.identifier)) context.report({ node: ref.identifier, messageId: 'outside', data: { name: variable.name } });
        }
      },
    };
  },
};

/**
 * The faces (the editor, the CLI, the DSH plugin) show what a core use case decided; they never
 * decide. From the core they import the use cases (src/core/app), types from anywhere, and what
 * FACE_ALLOWED names: presentation helpers, names of the contract, and the Node adapters a face
 * builds its ports from. `names`: only these bindings of the module (absent: all of it).
 */
const FACE_ALLOWED = [
  { module: 'node/', reason: 'the Node adapters (files, host store, processes) a face builds its ports from: they read and write, never decide' },
  { module: 'json/visibleText', reason: 'escapes control and bidi characters of text from files and servers before it is shown' },
  { module: 'problems/plural', reason: 'picks the plural form of a count in a message' },
  { module: 'problems/problems', names: ['formatMessage'], reason: 'words a code\'s template, its arguments escaped' },
  { module: 'json/text', reason: 'positions and ranges of a text, and bytes decoded to text' },
  { module: 'json/jsonTree', reason: 'the JSONC tree and its ranges, to find an entry in a file a face shows or opens' },
  { module: 'settings/settingsFile', reason: 'the JSONC range of a setting in a settings file, to place a problem' },
  { module: 'json/jsonValue', names: ['isRecord'], reason: 'a type guard' },
  { module: 'declaration/declarationModel', names: ['DECLARATION_PATH'], reason: 'where the declaration is: a name of the contract' },
  { module: 'lsp/lspModel', names: ['LSP_SETTING'], reason: 'the id of the language servers\' setting (dsh.lsp.servers): a name of the contract' },
  { module: 'mcp/toolNames', reason: 'DSH\'s tool names (mcp__<server>__<tool>): a name of the contract, both ways' },
];

/** The core module (`json/visibleText`) a path lies at, or undefined outside src/core. */
function coreModule(file) {
  const rel = path.relative(path.resolve('src/core'), file);
  return rel.startsWith('..') || path.isAbsolute(rel) ? undefined : rel.split(path.sep).join('/').replace(/\.(ts|js)$/, '');
}

/** The value bindings an import or re-export takes (type-only ones left out); undefined: the whole module. */
function valueNames(node) {
  if (node.importKind === 'type' || node.exportKind === 'type') return [];
  if (!node.specifiers) return undefined;
  const names = [];
  for (const s of node.specifiers) {
    if (s.importKind === 'type' || s.exportKind === 'type') continue;
    if (s.type !== 'ImportSpecifier' && s.type !== 'ExportSpecifier') return undefined; // default or namespace
    const imported = s.type === 'ImportSpecifier' ? s.imported : s.local;
    names.push(imported.type === 'Identifier' ? imported.name : String(imported.value));
  }
  return names;
}

const faceImports = {
  meta: { type: 'problem', schema: [], messages: {
    decides: 'A face imports from the core the use cases (core/app), types, and what FACE_ALLOWED in eslint.config.mjs names; core/{{module}} decides: call a use case that does (or import its types only).',
  } },
  create(context) {
    const check = (node, source, names) => {
      if ((names && names.length === 0) || typeof source !== 'string' || !source.startsWith('.')) return;
      const module = coreModule(path.resolve(path.dirname(context.filename), source));
      if (module === undefined || module.startsWith('app/')) return;
      const allowed = FACE_ALLOWED.some((a) => (a.module.endsWith('/') ? module.startsWith(a.module) : module === a.module) && (!a.names || (names && names.every((n) => a.names.includes(n)))));
      if (!allowed) context.report({ node, messageId: 'decides', data: { module } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value, valueNames(node)),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value, valueNames(node)),
      ExportAllDeclaration: (node) => check(node, node.source.value, node.exportKind === 'type' ? [] : undefined),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value, undefined),
    };
  },
};

const house = { rules: { 'core-floors': coreFloors, 'face-imports': faceImports } };

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
    // The .mjs tests and their harness: Node (and mocha in test/e2e); the editor's page only inside
    // the functions Playwright runs there. Undefined and unused names fail.
    files: ['test/e2e/**/*.mjs', 'test/dsh-e2e/**/*.mjs', 'test/harness/**/*.mjs', 'test/e2e/.mocharc.cjs'],
    languageOptions: { globals: { ...NODE_GLOBALS, ...Object.fromEntries(BROWSER_GLOBALS.map((name) => [name, 'readonly'])) } },
    plugins: { page: { rules: { 'browser-only-in-page': browserOnlyInPage } } },
    rules: { 'no-undef': 'error', 'no-unused-vars': ['error', { args: 'after-used', argsIgnorePattern: '^_', caughtErrors: 'none' }], 'page/browser-only-in-page': 'error' },
  },
  { files: ['test/e2e/**/*.mjs'], languageOptions: { globals: MOCHA_GLOBALS } },
  { files: ['test/e2e/.mocharc.cjs'], languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly', __dirname: 'readonly' } } },
  {
    files: ['src/core/**/*.ts'],
    plugins: { house },
    rules: { 'house/core-floors': 'error' },
  },
  {
    files: ['src/extension/**/*.ts', 'src/cli/**/*.ts', 'src/dsh-plugin/**/*.ts'],
    plugins: { house, '@typescript-eslint': tseslint.plugin },
    rules: {
      'house/face-imports': 'error',
      // A type import says so, so that house/face-imports tells it from a value import.
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
    },
  },
  {
    files: ['src/core/**/*.ts', 'src/cli/**/*.ts', 'src/dsh-plugin/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: 'The core, the CLI and the DSH plugin must not depend on the editor.' }],
        patterns: [
          ...NOT_FROM_CORE,
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
          ...NOT_FROM_CORE,
          { group: ['**/node/*', '!node:*'], allowTypeImports: true, message: 'The pure core does not call into the Node adapter layer: a use case gets it as a port (app/ports.ts), and may import its types only.' },
        ],
      }],
      'no-restricted-properties': ['error',
        { object: 'process', property: 'env', message: 'The pure core takes the environment as a parameter (app/: the env port).' },
        { object: 'process', property: 'cwd', message: 'The pure core takes the working directory as a parameter (app/: the cwd port).' },
      ],
    },
  },
  {
    // The adapters read through one file system (core/node/fsReads.ts), which notes every path a
    // computation reads: the DSH plugin keeps a session plan while none of them changes.
    files: ['src/core/node/**/*.ts'],
    ignores: ['src/core/node/fsReads.ts', 'src/core/node/readJournal.ts', 'src/core/node/readWatch.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [
          { name: 'vscode', message: 'The core must not depend on the editor.' },
          ...['fs', 'node:fs', 'fs/promises', 'node:fs/promises'].map((name) => ({
            name, message: 'Read files through ./fsReads (core/node/fsReads.ts): a read it does not note is one a kept session plan would not see change.',
          })),
        ],
        patterns: [
          ...NOT_FROM_CORE,
        ],
      }],
    },
  },
);
