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

const noAjv = {
  name: 'no-ajv',
  setup(b) {
    b.onResolve({ filter: /validation[\\/]ajv-provider(\.js)?$/ }, () => ({ path: 'ajv-provider-stub', namespace: 'no-ajv' }));
    b.onLoad({ filter: /.*/, namespace: 'no-ajv' }, () => ({
      contents: 'export class AjvJsonSchemaValidator { constructor() { throw new Error("no JSON Schema engine in the probe bundle"); } }',
      loader: 'js',
    }));
  },
};

const entries = [
  { in: 'src/extension/extension.ts', out: 'dist/extension.js', external: ['vscode'], plugins: [probeChunk] },
  { in: 'src/cli/main.ts', out: 'dist/cli.js', banner: '#!/usr/bin/env node', plugins: [probeChunk] },
  { in: 'src/dsh-plugin/index.ts', out: 'dist/dsh-plugin.js' },
  // Third-party code almost whole: always minified, no sourcemap; the SDK's default JSON Schema
  // engine (Ajv, ~130 KB) is replaced by a stub, as the probe passes its own validator.
  { in: 'src/core/node/probe/probeClient.ts', out: 'dist/mcp-probe.js', minify: true, sourcemap: false, plugins: [noAjv] },
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
    ...(e.minify !== undefined ? { minify: e.minify } : {}),
    ...(e.sourcemap !== undefined ? { sourcemap: e.sourcemap } : {}),
  });
}
