// Builds the release .vsix (`npm run package`): the files .vscodeignore allows, staged in a folder
// of their own and made smaller there without changing what VS Code reads, packed by vsce,
// re-deflated with zopfli (recompress-vsix.mjs) and held to the budget.
//   node scripts/package-vsix.mjs [out.vsix]   (default dist/dsh-bridge.vsix; exit 1 over the budget)
// What the stage changes (README, Performance, has each step's saving):
// - dist/extension.js and dist/features.js: esbuild's release build, then terser (safe options
//   only: no unsafe transforms, names of the file's own scope only, no property renaming);
// - JSON files (package.json, package.nls*.json, schemas/, l10n/): minified (VS Code, vsce and
//   the export read them with JSON.parse; the export writes the schema copy pretty again);
//   package.json without what only development and npm read (scripts, dependencies, bin, allowScripts);
// - package.json and package.nls*.json: each placeholder key a short name (its place in package.nls.json);
// - l10n bundles: keyed by l10nKey (a hash of the English text, src/extension/l10nKey.ts)
//   instead of the English text, which the code already carries, the keys in one string and the
//   translations in one list; fails on a collision;
// - CHANGELOG.md: this version's heading with a link to its entries, and to the whole history.
// The e2e tier installs archives made by packageVsix() (test/harness/e2e-driver.mjs).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { minify } from 'terser';
import { buildBundles, ENTRIES } from './build.mjs';
import { BUDGET_BYTES, recompressVsix } from './recompress-vsix.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const require = createRequire(import.meta.url);

/** The l10nKey function of the extension itself, so the shipped keys are the ones it looks up. */
async function loadL10nKey() {
  const r = await build({ entryPoints: [path.join(ROOT, 'src/extension/l10nKey.ts')], bundle: true, platform: 'node', format: 'esm', write: false, logLevel: 'warning' });
  const { l10nKey } = await import(`data:text/javascript;base64,${Buffer.from(r.outputFiles[0].text).toString('base64')}`);
  return l10nKey;
}

/**
 * A bundle keyed by the English text, as the .vsix ships it (src/extension/l10nLookup.ts reads
 * it): the l10nKey of each message, concatenated, and the translations in the same order. Apart
 * from the text, the keys cost the archive 1.3 KiB less than as the keys of an object. Throws
 * when two messages get one key.
 */
export function shippedBundle(bundle, l10nKey) {
  const from = new Map();
  for (const message of Object.keys(bundle)) {
    const key = l10nKey(message);
    if (from.has(key)) throw new Error(`package-vsix: "${from.get(key)}" and "${message}" have the same l10n key ${key}: reword one`);
    from.set(key, message);
  }
  return { keys: [...from.keys()].join(''), translations: Object.values(bundle) };
}

/**
 * The manifest's placeholder keys (`"%config.tools%"`) as the .vsix ships them: each a short name
 * (its place in package.nls.json, base 36), the same in package.json and in every package.nls
 * file, which carry each key once more. VS Code only matches them up; nobody reads them.
 */
export function shortNlsKeys(nls) {
  return new Map(Object.keys(nls).map((key, i) => [key, i.toString(36)]));
}

/** A JSON text whose whole-string values `"%key%"` use the short keys (others as they are). */
export function withShortNlsKeys(json, short) {
  return json.replace(/"%([^"%]+)%"/g, (whole, key) => (short.has(key) ? `"%${short.get(key)}%"` : whole));
}

/** A package.nls file keyed by the short keys; fails on a key package.nls.json does not have. */
export function nlsWithShortKeys(nls, short) {
  return Object.fromEntries(Object.entries(nls).map(([key, text]) => {
    if (!short.has(key)) throw new Error(`package-vsix: package.nls key ${key} is not in package.nls.json`);
    return [short.get(key), text];
  }));
}

/**
 * The changelog the .vsix ships: the preamble and the top section's heading (Unreleased while it is
 * built from main, else this version's), whose entries are read in the repository, then where the
 * earlier ones are. The entries themselves cost about 11 KiB of the archive's 300 KiB budget (they
 * grow with every change), so the Extensions view's changelog tab links to them instead.
 */
export function changelogForVsix(text, historyUrl) {
  const sections = [...text.matchAll(/^## .*$/gm)];
  if (sections.length === 0) return text;
  const [top, ...rest] = sections;
  const earlier = rest.map((m) => /^## \[?([^\]\s]+)\]?/.exec(m[0])?.[1]).filter(Boolean);
  // The heading's anchor as GitHub makes it: lower case, punctuation dropped, each space a hyphen.
  const anchor = top[0].slice(3).trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
  return `${text.slice(0, top.index).trimEnd()}\n\n${top[0]}\n\nWhat changed in this version: see the [changelog](${historyUrl}#${anchor}).\n`
    + (earlier.length ? `\n## Earlier versions\n\n${earlier.join(', ')}: see the [full changelog](${historyUrl}).\n` : '');
}

/** The allow-list of .vscodeignore ("**" then "!pattern" lines) as regular expressions. */
function allowList() {
  const lines = readFileSync(path.join(ROOT, '.vscodeignore'), 'utf8').split('\n').map((l) => l.trim());
  return lines.filter((l) => l.startsWith('!')).map((l) => {
    const glob = l.slice(1);
    const source = glob.split('**').map((part) => part.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')).join('.*');
    return { glob, re: new RegExp(`^${source}$`) };
  });
}

function filesUnder(rel) {
  const abs = path.join(ROOT, rel);
  if (!existsSync(abs)) return [];
  if (!statSync(abs).isDirectory()) return [rel];
  return readdirSync(abs, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

/** The repository's files the allow-list ships, except the bundles (built into the stage). */
function shippedFiles() {
  const bundles = new Set(ENTRIES.filter((e) => e.vsix).map((e) => e.out));
  const files = new Set();
  for (const { glob, re } of allowList()) {
    const prefix = glob.split('*')[0];
    const base = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '.';
    for (const f of base === '.' ? readdirSync(ROOT).filter((n) => statSync(path.join(ROOT, n)).isFile()) : filesUnder(base)) {
      if (re.test(f) && !bundles.has(f)) files.add(f);
    }
  }
  return [...files].sort();
}

const minifiedJson = (text) => JSON.stringify(JSON.parse(text));

/**
 * Stages the release files in a temporary folder, packs them with vsce into `out` and re-deflates
 * the archive. Returns the sizes (bytes) and the uncompressed size of each staged file.
 */
export async function packageVsix(out = path.join(ROOT, 'dist', 'dsh-bridge.vsix'), { log = () => {} } = {}) {
  const stage = mkdtempSync(path.join(tmpdir(), 'dshb-stage-'));
  try {
    for (const file of await buildBundles({ release: true, outdir: stage, only: 'vsix' })) {
      const code = readFileSync(file, 'utf8');
      const result = await minify(code, {
        ecma: 2020,
        module: false,
        toplevel: true, // a CommonJS file: its top-level names are its own
        compress: { passes: 2 },
        mangle: true,
        format: { comments: false },
      });
      writeFileSync(file, result.code);
      log(`${path.relative(stage, file)}: ${code.length} -> ${result.code.length} bytes (terser)`);
    }
    const l10nKey = await loadL10nKey();
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    const shortKeys = shortNlsKeys(JSON.parse(readFileSync(path.join(ROOT, 'package.nls.json'), 'utf8')));
    const historyUrl = `${String(manifest.repository?.url ?? manifest.homepage).replace(/\.git$/, '').replace(/#.*$/, '')}/blob/main/CHANGELOG.md`;
    for (const rel of shippedFiles()) {
      const from = path.join(ROOT, rel);
      const to = path.join(stage, rel);
      mkdirSync(path.dirname(to), { recursive: true });
      if (/^l10n\/bundle\.l10n\.[\w-]+\.json$/.test(rel)) {
        writeFileSync(to, JSON.stringify(shippedBundle(JSON.parse(readFileSync(from, 'utf8')), l10nKey)));
      } else if (rel === 'package.json') {
        // What only development and npm read stays home (npm scripts, dependencies, which are bundled,
        // the CLI's bin, which the .vsix does not ship, npm's allowScripts): VS Code never reads it.
        const { scripts, devDependencies, dependencies, bin, allowScripts, ...shipped } = JSON.parse(readFileSync(from, 'utf8'));
        writeFileSync(to, withShortNlsKeys(JSON.stringify(shipped), shortKeys));
      } else if (/^package\.nls(\.[\w-]+)?\.json$/.test(rel)) {
        writeFileSync(to, JSON.stringify(nlsWithShortKeys(JSON.parse(readFileSync(from, 'utf8')), shortKeys)));
      } else if (rel.endsWith('.json')) {
        writeFileSync(to, minifiedJson(readFileSync(from, 'utf8')));
      } else if (rel === 'CHANGELOG.md') {
        writeFileSync(to, changelogForVsix(readFileSync(from, 'utf8'), historyUrl));
      } else {
        copyFileSync(from, to);
      }
    }
    // vsce reads these itself: the allow-list, and the README it turns into the Marketplace page.
    for (const rel of ['.vscodeignore', 'README.marketplace.md']) copyFileSync(path.join(ROOT, rel), path.join(stage, rel));
    mkdirSync(path.dirname(out), { recursive: true });
    const vsce = require.resolve('@vscode/vsce/vsce');
    const r = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--githubBranch', 'main', '--readme-path', 'README.marketplace.md', '--out', path.resolve(out)],
      { cwd: stage, encoding: 'utf8', timeout: 300000 });
    log(r.stdout);
    if (r.status !== 0) throw new Error(`vsce package failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
    const sizes = await recompressVsix(out);
    return sizes;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

// Run as a script (a path with spaces or through a link too: else the budget would go unchecked).
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const out = process.argv[2] ?? path.join(ROOT, 'dist', 'dsh-bridge.vsix');
  const { before, after } = await packageVsix(out, { log: (line) => console.log(line.trimEnd()) });
  console.log(`${out}: ${(after / 1024).toFixed(1)} KiB (vsce wrote ${(before / 1024).toFixed(1)} KiB; budget ${BUDGET_BYTES / 1024} KiB, margin ${((BUDGET_BYTES - after) / 1024).toFixed(1)} KiB)`);
  if (after > BUDGET_BYTES) {
    console.error(`${out} is over the ${BUDGET_BYTES / 1024} KiB budget: see README, Performance, for where the bytes go.`);
    process.exitCode = 1;
  }
}
