// Bundles the extension, the CLI and the DSH plugin with esbuild.
//   node scripts/build.mjs [--release] [--sizes] [--unless-built]   (--release: minified, no sourcemaps;
//   --sizes: each bundle's 25 biggest modules, bytes in the output, and one chain that pulls each in)
// The .vsix is built by scripts/package-vsix.mjs (`npm run package`), which calls buildBundles()
// into its own folder and minifies the extension's two files once more.
import { build } from 'esbuild';
import { existsSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { yamlEsm } from './yaml-esm.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * The extension is two files: dist/extension.js (activate(): the log and the command table) and
 * dist/features.js (everything else), which the first requires at run time. One bundle would
 * have to wrap every module of the features in a lazy initializer for that require to defer
 * their evaluation (about 10 KB minified); two bundles defer it with none.
 */
const features = {
  name: 'features-external',
  setup(b) {
    b.onResolve({ filter: /^\.\/features$/ }, (args) =>
      args.importer.endsWith(path.join('src', 'extension', 'extension.ts')) ? { path: './features.js', external: true } : undefined);
  },
};

/**
 * The modules dist/extension.js carries for activate(), which features.js takes from it rather
 * than bundling a second copy: extension.ts re-exports them, and one module of the features
 * binds each name from a require of the loaded file.
 */
const ACTIVATION_MODULES = ['src/extension/commandIds.ts', 'src/extension/l10nLookup.ts', 'src/extension/log.ts', 'src/extension/visible.ts', 'src/core/json/visibleText.ts'];
const fromActivation = {
  name: 'from-activation',
  setup(b) {
    const shared = new Set(ACTIVATION_MODULES.map((m) => path.join(ROOT, m)));
    b.onResolve({ filter: /^\.\/extension\.js$/, namespace: 'from-activation' }, (args) => ({ path: args.path, external: true }));
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      const file = path.resolve(args.resolveDir, args.path);
      return shared.has(`${file}.ts`) || shared.has(file) ? { path: 'activation', namespace: 'from-activation' } : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'from-activation' }, async () => {
      const r = await build({ absWorkingDir: ROOT, entryPoints: [ENTRIES[0].in], bundle: true, platform: 'node', format: 'esm', write: false, metafile: true, external: ['vscode', './features'], logLevel: 'warning' });
      const names = Object.values(r.metafile.outputs)[0].exports.filter((n) => n !== 'activate' && n !== 'deactivate');
      return { contents: `export const { ${names.join(', ')} } = require('./extension.js');`, loader: 'js' };
    });
  },
};

export const ENTRIES = [
  { in: 'src/extension/extension.ts', out: 'dist/extension.js', external: ['vscode'], plugins: [features], vsix: true },
  { in: 'src/extension/features.ts', out: 'dist/features.js', external: ['vscode'], plugins: [fromActivation], vsix: true },
  { in: 'src/cli/main.ts', out: 'dist/cli.js', banner: '#!/usr/bin/env node' },
  { in: 'src/dsh-plugin/index.ts', out: 'dist/dsh-plugin.js' },
];

/**
 * Builds the bundles into `outdir` (the repository by default: dist/...); `only: 'vsix'` builds
 * the two files of the extension alone. Returns the files written.
 */
export async function buildBundles({ release = false, outdir = ROOT, only, sizes = false } = {}) {
  const written = [];
  for (const e of ENTRIES) {
    if (only === 'vsix' && !e.vsix) continue;
    if (!existsSync(path.join(ROOT, e.in))) continue;
    const outfile = path.join(outdir, e.out);
    const result = await build({
      absWorkingDir: ROOT,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      // jsonc-parser's UMD entry ("main") breaks when bundled: prefer its ESM build.
      mainFields: ['module', 'main'],
      sourcemap: release ? false : 'linked',
      minify: release,
      // Non-ASCII characters as they are, not as \u escapes (the files are UTF-8).
      charset: 'utf8',
      legalComments: 'none',
      logLevel: 'warning',
      metafile: true,
      entryPoints: [e.in],
      outfile,
      external: e.external ?? [],
      banner: e.banner ? { js: e.banner } : undefined,
      plugins: [yamlEsm, ...(e.plugins ?? [])],
    });
    if (sizes) printSizes(e, result.metafile);
    written.push(outfile);
  }
  return written;
}

/** The biggest inputs of a bundle and, for each, the shortest import chain from the entry. */
function printSizes(entry, metafile) {
  const inputs = Object.values(metafile.outputs).find((o) => o.entryPoint === entry.in)?.inputs ?? {};
  const importers = new Map();
  for (const [file, info] of Object.entries(metafile.inputs)) {
    for (const i of info.imports) if (i.path in inputs) importers.set(i.path, [...(importers.get(i.path) ?? []), file]);
  }
  const chain = (file) => {
    const from = new Map([[file, undefined]]);
    for (const queue = [file]; queue.length > 0;) {
      const at = queue.shift();
      if (at === entry.in) break;
      for (const by of importers.get(at) ?? []) if (!from.has(by)) { from.set(by, at); queue.push(by); }
    }
    const path = [];
    for (let at = entry.in; at !== undefined && from.has(entry.in); at = from.get(at)) path.push(at);
    return path.join(' > ');
  };
  const rows = Object.entries(inputs).map(([file, info]) => [info.bytesInOutput, file]).sort((a, b) => b[0] - a[0]);
  const total = rows.reduce((sum, [bytes]) => sum + bytes, 0);
  console.log(`${entry.out}: ${total} bytes from ${rows.length} modules`);
  for (const [bytes, file] of rows.slice(0, 25)) console.log(`  ${String(bytes).padStart(7)}  ${file}\n           ${chain(file)}`);
}

// Run as a script (a path with spaces or through a link too). --unless-built: nothing when
// `npm test` built this checkout already (scripts/test-tiers.mjs sets DSH_BRIDGE_BUILT=1 for the
// tiers it runs); each tier run alone builds.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  if (process.argv.includes('--unless-built') && process.env.DSH_BRIDGE_BUILT === '1') {
    console.log('build: done once by npm test');
  } else {
    await buildBundles({ release: process.argv.includes('--release'), sizes: process.argv.includes('--sizes') });
  }
}
