// The `yaml` package, bundled from its ES module build rather than its CommonJS one: the same
// source, but the bundler can leave out what is never used (about 12 KB minified). The two
// builds differ in one place that changes a parsed value: the YAML 1.1 `!!binary` tag decodes
// with Node's Buffer in the CommonJS build (the one DSH loads) and with atob in the ES build.
// That branch is put back here, so the bundle parses every file exactly as DSH does; the unit
// test test/unit/scripts/build.test.ts compares the two builds on the repository's YAML and on edge cases.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import * as path from 'node:path';

const require = createRequire(import.meta.url);
const root = path.dirname(require.resolve('yaml/package.json'));
const binaryJs = path.join(root, 'browser', 'dist', 'schema', 'yaml-1.1', 'binary.js');

const PATCHES = [
  [
    "if (typeof atob === 'function') {",
    "if (typeof Buffer === 'function') {\n            return Buffer.from(src, 'base64');\n        }\n        else if (typeof atob === 'function') {",
  ],
  [
    "if (typeof btoa === 'function') {",
    "if (typeof Buffer === 'function') {\n            str = buf instanceof Buffer ? buf.toString('base64') : Buffer.from(buf.buffer).toString('base64');\n        }\n        else if (typeof btoa === 'function') {",
  ],
];

export const yamlEsm = {
  name: 'yaml-esm',
  setup(b) {
    b.onResolve({ filter: /^yaml$/ }, () => ({ path: path.join(root, 'browser', 'dist', 'index.js') }));
    b.onLoad({ filter: /[\\/]yaml-1\.1[\\/]binary\.js$/ }, async (args) => {
      if (path.resolve(args.path) !== binaryJs) return undefined;
      let text = await readFile(binaryJs, 'utf8');
      for (const [from, to] of PATCHES) {
        // A new yaml release that moved this code must fail the build, not bundle a different parser.
        if (text.split(from).length !== 2) throw new Error(`yaml-esm: ${binaryJs} no longer holds "${from}" once; look at the Node build's binary tag again`);
        text = text.replace(from, to);
      }
      return { contents: `import { Buffer } from 'node:buffer';\n${text}`, loader: 'js' };
    });
  },
};
