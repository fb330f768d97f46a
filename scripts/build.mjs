// Bundles the extension, the CLI and the DSH plugin with esbuild.
//   node scripts/build.mjs [--release]   (--release: minified, no sourcemaps)
import { build } from 'esbuild';
import { existsSync } from 'node:fs';

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

// The MCP SDK client (the probe) is its own file, required from beside the bundle that needs it
// only when a probe runs: activation and the CLI's cold start never load it.
const probeChunk = {
  name: 'probe-chunk',
  setup(b) {
    b.onResolve({ filter: /[\\/]probe[\\/]probeClient(\.js)?$/ }, () => ({ path: './mcp-probe.js', external: true }));
  },
};

const entries = [
  { in: 'src/extension/extension.ts', out: 'dist/extension.js', external: ['vscode'], plugins: [probeChunk] },
  { in: 'src/cli/main.ts', out: 'dist/cli.js', banner: '#!/usr/bin/env node', plugins: [probeChunk] },
  { in: 'src/dsh-plugin/index.ts', out: 'dist/dsh-plugin.js' },
  { in: 'src/core/node/probe/probeClient.ts', out: 'dist/mcp-probe.js' },
];

for (const e of entries) {
  if (!existsSync(e.in)) continue;
  await build({
    ...common,
    entryPoints: [e.in],
    outfile: e.out,
    external: e.external ?? [],
    banner: e.banner ? { js: e.banner } : undefined,
    plugins: e.plugins ?? [],
  });
}
