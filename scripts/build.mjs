// Bundles the extension, the CLI and the DSH plugin with esbuild.
//   node scripts/build.mjs [--release]   (--release: minified, no sourcemaps)
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { yamlEsm } from './yaml-esm.mjs';

const release = process.argv.includes('--release');
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // jsonc-parser's UMD entry ("main") breaks when bundled: prefer its ESM build.
  mainFields: ['module', 'main'],
  sourcemap: release ? false : 'linked',
  minify: release,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
};

const entries = [
  { in: 'src/extension/extension.ts', out: 'dist/extension.js', external: ['vscode'] },
  { in: 'src/cli/main.ts', out: 'dist/cli.js', banner: '#!/usr/bin/env node' },
  { in: 'src/dsh-plugin/index.ts', out: 'dist/dsh-plugin.js' },
];

for (const e of entries) {
  if (!existsSync(e.in)) continue;
  await build({
    ...common,
    entryPoints: [e.in],
    outfile: e.out,
    external: e.external ?? [],
    banner: e.banner ? { js: e.banner } : undefined,
    plugins: [yamlEsm],
  });
}
