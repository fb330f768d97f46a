import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { DOCTOR_MESSAGES } from '../../src/core/node/doctor';
import { DANGER_MESSAGES } from '../../src/core/mcp/launchReview';
import { PROBLEM_CATALOG } from '../../src/core/problems/problemCatalog';
import { QUICK_FIX_TITLES } from '../../src/core/mcp/quickFixes';

const ROOT = path.resolve(__dirname, '../..');
const read = (rel: string) => readFileSync(path.join(ROOT, rel), 'utf8');
const json = (rel: string) => JSON.parse(read(rel)) as Record<string, string>;

/** Every message the extension words: literal l10n.t/translate keys and the core's templates. */
function messageKeys(): string[] {
  const keys = new Set<string>();
  for (const f of readdirSync(path.join(ROOT, 'src/extension'), { recursive: true, encoding: 'utf8' }).filter((n) => n.endsWith('.ts'))) {
    for (const m of read(`src/extension/${f}`).matchAll(/(?:l10n\.t|translate)\(\s*'((?:[^'\\]|\\.)*)'/g)) keys.add(m[1].replace(/\\'/g, "'"));
  }
  for (const area of PROBLEM_CATALOG) for (const [, template] of Object.values(area.codes)) keys.add(template);
  for (const t of QUICK_FIX_TITLES) keys.add(t);
  for (const t of Object.values(DANGER_MESSAGES)) keys.add(t);
  for (const t of Object.values(DOCTOR_MESSAGES)) keys.add(t);
  return [...keys];
}

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('extension l10n (English + Simplified Chinese)', () => {
  const bundle = json('l10n/bundle.l10n.zh-cn.json');

  it('translates every message of the extension (all folders) and every problem template of the catalog', () => {
    const missing = messageKeys().filter((k) => !(k in bundle));
    assert.deepEqual(missing, [], 'add these keys to l10n/bundle.l10n.zh-cn.json');
  });

  it('keeps every placeholder of a message in its translation', () => {
    for (const [key, value] of Object.entries(bundle)) assert.deepEqual(placeholders(value), placeholders(key), `placeholders differ for "${key}"`);
  });

  it('has the same package.nls keys in English and Chinese, and every %key% of package.json in them', () => {
    const en = json('package.nls.json');
    const zh = json('package.nls.zh-cn.json');
    assert.deepEqual(Object.keys(zh).sort(), Object.keys(en).sort());
    const used = [...read('package.json').matchAll(/"%([\w.]+)%"/g)].map((m) => m[1]);
    assert.ok(used.length > 10);
    assert.deepEqual(used.filter((k) => !(k in en)), []);
  });

  it('declares the l10n folder in the manifest', () => {
    assert.equal(JSON.parse(read('package.json')).l10n, './l10n');
  });
});
