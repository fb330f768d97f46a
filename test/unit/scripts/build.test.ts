import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { build } from 'esbuild';
import * as nodeYaml from 'yaml';

// The bundles take `yaml` from its ES module build with the Node binary tag put back
// (scripts/yaml-esm.mjs); DSH loads the CommonJS build. Both must read every file alike.
const ROOT = path.resolve(__dirname, '../../..');

type Yaml = typeof nodeYaml;

async function bundledYaml(): Promise<Yaml> {
  const { yamlEsm } = await import(path.join(ROOT, 'scripts/yaml-esm.mjs'));
  const dir = mkdtempSync(path.join(tmpdir(), 'yaml-esm-'));
  const entry = path.join(dir, 'entry.js');
  writeFileSync(entry, "export { parseDocument, isMap, isSeq, isScalar } from 'yaml';\n");
  const out = path.join(dir, 'yaml.cjs');
  await build({ entryPoints: [entry], outfile: out, bundle: true, platform: 'node', format: 'cjs', target: 'node20', minify: true, plugins: [yamlEsm], nodePaths: [path.join(ROOT, 'node_modules')], logLevel: 'silent' });
  return require(out) as Yaml;
}

function frontMatterAndYamlFiles(dir: string): string[] {
  const texts: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile() || (e.parentPath ?? '').includes('node_modules')) continue;
    const file = path.join(e.parentPath ?? dir, e.name);
    if (/\.ya?ml$/.test(e.name)) texts.push(readFileSync(file, 'utf8'));
    else if (e.name.endsWith('.md')) {
      const m = /^---\r?\n([\s\S]*?)\r?\n---/.exec(readFileSync(file, 'utf8'));
      if (m) texts.push(m[1]);
    }
  }
  return texts;
}

const EDGES = [
  'name: a\ndescription: b\n',
  '%YAML 1.1\n---\nbin: !!binary aGVsbG8=\n',
  '%YAML 1.1\n---\nbin: !!binary |\n  aGVs\n  bG8=\n',
  '%YAML 1.1\n---\nbad: !!binary "@@not base64%%"\n',
  '%YAML 1.1\n---\n{yes: on, no: off, n: 0o17, t: 2001-12-14t21:59:43.10-05:00, s: !!set {a, b}, o: !!omap [a: 1]}\n',
  'a: &x {k: 1}\nb: *x\nc: {<<: *x}\n',
  'user-invocable: yes\ndisable-model-invocation: On\n',
  '- insert:\n    id: x\n    config: !!js undefined\n',
  'key: [unclosed\n',
  'a: 1\na: 2\n',
  '\t- tab\n',
  'x: "\\ud800"\n',
  'deep: ' + '['.repeat(200) + ']'.repeat(200) + '\n',
];

function view(yaml: Yaml, text: string, version?: '1.1' | '1.2') {
  const doc = yaml.parseDocument(text, version ? { version } : {});
  let js: unknown;
  try {
    js = doc.toJS();
  } catch (error) {
    js = `throws ${(error as Error).name}`;
  }
  return {
    js,
    kind: yaml.isMap(doc.contents) ? 'map' : yaml.isSeq(doc.contents) ? 'seq' : yaml.isScalar(doc.contents) ? 'scalar' : 'other',
    errors: doc.errors.map((e) => [e.code, e.pos, e.message]),
    warnings: doc.warnings.map((e) => [e.code, e.pos]),
  };
}

describe('yaml as bundled (ES build, Node binary tag) reads like the package DSH loads', function () {
  this.timeout(60000);
  let bundled: Yaml;
  before(async () => {
    bundled = await bundledYaml();
  });

  it('is not the same module object (the comparison compares two builds)', () => {
    assert.notEqual(bundled.parseDocument, nodeYaml.parseDocument);
  });

  it('the repository\'s YAML and skill front matter, and edge cases, in YAML 1.2 and 1.1', () => {
    const texts = [...frontMatterAndYamlFiles(path.join(ROOT, 'test')), ...frontMatterAndYamlFiles(path.join(ROOT, 'examples')), ...EDGES];
    assert.ok(texts.length > EDGES.length + 10, `only ${texts.length} texts found`);
    for (const text of texts) {
      for (const version of [undefined, '1.1'] as const) {
        assert.deepEqual(view(bundled, text, version), view(nodeYaml, text, version), `${version ?? 'default'}: ${text.slice(0, 80)}`);
      }
    }
  });

  it('decodes !!binary to a Buffer, as DSH does, also when the base64 is malformed', () => {
    const good = bundled.parseDocument('%YAML 1.1\n---\nb: !!binary aGVsbG8=\n').toJS() as { b: Buffer };
    assert.ok(Buffer.isBuffer(good.b));
    assert.equal(good.b.toString(), 'hello');
    const bad = bundled.parseDocument('%YAML 1.1\n---\nb: !!binary "@@%%"\n');
    assert.deepEqual(bad.errors, []);
  });
});
