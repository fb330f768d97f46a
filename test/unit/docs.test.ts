import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod/mini';
import { DeclarationSchema } from '../../src/core/declaration/declarationModel';
import { PROBLEM_CATALOG } from '../../src/core/app/problemCatalog';
import { PLAN_MESSAGES } from '../../src/core/app/planReasons';

const ROOT = path.resolve(__dirname, '../..');

describe('docs and generated files stay in sync with the code', () => {
  it('docs/problem-codes.md has a heading for every problem code (the diagnostics link to it) and is the page the editor writes', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/gen-docs.ts', '--check'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const page = readFileSync(path.join(ROOT, 'docs/problem-codes.md'), 'utf8');
    for (const { codes } of PROBLEM_CATALOG) for (const code of Object.keys(codes)) assert.ok(page.includes(`### \`${code}\``), code);
    // The editor writes problemCodesPage() into its storage (src/extension/problemDocs.ts): the
    // .vsix ships no copy of it (gen-docs --check above keeps the repository's page the same text).
    assert.doesNotMatch(readFileSync(path.join(ROOT, '.vscodeignore'), 'utf8'), /^!docs\//m);
  });

  it('docs/session-plan.md has a row for every reason code of the session plan, and no other', () => {
    const page = readFileSync(path.join(ROOT, 'docs/session-plan.md'), 'utf8');
    const documented = [...page.matchAll(/^\| `([a-z-]+)` \| /gm)].map((m) => m[1]);
    assert.deepEqual(documented.sort(), Object.keys(PLAN_MESSAGES).sort());
  });

  it('docs/problem-codes.zh-cn.md explains every code in Simplified Chinese (templates as translated for the editor, every fix), the page the editor writes in Chinese', () => {
    const zh = readFileSync(path.join(ROOT, 'docs/problem-codes.zh-cn.md'), 'utf8');
    const bundle = JSON.parse(readFileSync(path.join(ROOT, 'l10n/bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
    for (const { codes } of PROBLEM_CATALOG) {
      for (const [code, [, template]] of Object.entries(codes)) {
        const entry = zh.split(`### \`${code}\`\n\n`)[1]?.split('\n### ')[0];
        assert.ok(entry, `no heading for ${code}`);
        assert.ok(entry.includes(bundle[template].replace(/\{(\w+)\}/g, '*$1*')), `${code}: not the editor's Chinese message`);
      }
    }
    const english = readFileSync(path.join(ROOT, 'docs/problem-codes.md'), 'utf8');
    assert.equal(zh.split('\n### ').length, english.split('\n### ').length);
    assert.doesNotMatch(zh, /\n(Quick fix|Replace|Rename|Remove|Fix|Use|Pin|Split|Move|Delete|Nothing to do)\b/, 'an English fix on the Chinese page');
  });

  it('schemas/declaration.schema.json is what the zod model generates', () => {
    const committed = JSON.parse(readFileSync(path.join(ROOT, 'schemas/declaration.schema.json'), 'utf8'));
    const generated = z.toJSONSchema(DeclarationSchema, { target: 'draft-7' }) as Record<string, unknown>;
    for (const key of ['properties', 'required', 'type']) assert.deepEqual(committed[key], generated[key], key);
  });

  it('docs/declaration.md names every field of the declaration model', () => {
    const doc = readFileSync(path.join(ROOT, 'docs/declaration.md'), 'utf8');
    const names = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (typeof node !== 'object' || node === null) return;
      const properties = (node as { properties?: Record<string, unknown> }).properties;
      if (properties) for (const key of Object.keys(properties)) names.add(key);
      for (const value of Object.values(node)) walk(value);
    };
    walk(z.toJSONSchema(DeclarationSchema, { target: 'draft-7' }));
    assert.ok(names.has('lsp') && names.has('extensionToLanguage') && names.has('trust'), 'the sections are in the schema');
    for (const name of names) assert.ok(doc.includes(`\`${name}\``) || doc.includes(`"${name}"`), name);
  });

  it('problem codes are unique across areas', () => {
    const all = PROBLEM_CATALOG.flatMap((a) => Object.keys(a.codes));
    assert.equal(new Set(all).size, all.length);
  });
});
