import { build } from 'esbuild';
import { yamlEsm } from './yaml-esm.mjs';
import { minify } from 'terser';
import zlib from 'node:zlib';
const r = await build({ absWorkingDir: process.cwd(), bundle: true, platform: 'node', target: 'node20', format: 'cjs', mainFields: ['module','main'], minify: true, charset: 'utf8', legalComments: 'none', write: false, entryPoints: ['src/extension/features.ts'], outfile: '/tmp/x.js', external: ['vscode'], plugins: [yamlEsm], logLevel: 'error' });
const base = { ecma: 2020, module: false, toplevel: true, compress: { passes: 2 }, mangle: true, format: { comments: false } };
const variants = {
  base: base,
  passes3: { ...base, compress: { passes: 3 } },
  ecma2022: { ...base, ecma: 2022 },
  arrows: { ...base, compress: { passes: 2, arrows: true, unsafe_arrows: false } },
  nokeepfargs: { ...base, compress: { passes: 2, keep_fargs: false } },
  wrapiife: { ...base, format: { comments: false, wrap_func_args: false, wrap_iife: false } },
  semis: { ...base, format: { comments: false, semicolons: true } },
};
for (const [n, o] of Object.entries(variants)) {
  const code = (await minify(r.outputFiles[0].text, o)).code;
  console.log(n, code.length, zlib.deflateRawSync(code, { level: 9 }).length);
}
