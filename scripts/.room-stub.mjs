import { build } from 'esbuild';
import { yamlEsm } from './yaml-esm.mjs';
import { minify } from 'terser';
import zlib from 'node:zlib';
const stubRe = process.argv[2] ? new RegExp(process.argv[2]) : null;
const stub = { name: 'stub', setup(b) { if (!stubRe) return; b.onResolve({ filter: stubRe }, (a) => ({ path: a.path, namespace: 'stub' })); b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({ contents: 'module.exports = new Proxy({}, {get: () => () => ({})});', loader: 'js' })); } };
const r = await build({ absWorkingDir: process.cwd(), bundle: true, platform: 'node', target: 'node20', format: 'cjs', mainFields: ['module','main'], minify: true, charset: 'utf8', legalComments: 'none', write: false, entryPoints: ['src/extension/features.ts'], outfile: '/tmp/x.js', external: ['vscode'], plugins: [stub, yamlEsm], logLevel: 'error' });
const code = (await minify(r.outputFiles[0].text, { ecma: 2020, module: false, toplevel: true, compress: { passes: 2 }, mangle: true, format: { comments: false } })).code;
console.log(code.length, zlib.deflateRawSync(code, { level: 9 }).length);
