import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { DOCTOR_MESSAGES } from '../../../src/core/app/doctor';
import { PLAN_MESSAGES } from '../../../src/core/app/planReasons';
import { WITHHELD_MESSAGES } from '../../../src/core/app/planWithheld';
import { DANGER_MESSAGES } from '../../../src/core/mcp/launchReview';
import { PROBLEM_CATALOG } from '../../../src/core/app/problemCatalog';
import { PROBLEM_VARIANTS } from '../../../src/core/problems/problems';
import { problemCodesPage } from '../../../src/core/app/problemCodesPage';
import { IMPORT_NOTES } from '../../../src/core/import/importNotes';
import { IMPORT_REPORT_WORDS } from '../../../src/core/import/importReport';
import { MOVE_BLOCK_TEMPLATES, MOVE_HOLD_TEMPLATES } from '../../../src/core/mcp/portableMove';

const ROOT = path.resolve(__dirname, '../../..');
const read = (rel: string) => readFileSync(path.join(ROOT, rel), 'utf8');
const json = (rel: string) => JSON.parse(read(rel)) as Record<string, string>;

/** Every text of the problem-code page (docs/problem-codes*.md, gen-docs.ts). */
function pageKeys(): string[] {
  const keys = new Set<string>();
  problemCodesPage((english) => {
    keys.add(english);
    return english;
  });
  return [...keys];
}

/** Every message the extension words: literal l10n.t/translate keys and the core's templates. */
function messageKeys(): string[] {
  const keys = new Set<string>();
  for (const f of readdirSync(path.join(ROOT, 'src/extension'), { recursive: true, encoding: 'utf8' }).filter((n) => n.endsWith('.ts'))) {
    for (const m of read(`src/extension/${f}`).matchAll(/(?:l10n\.t|translate)\(\s*'((?:[^'\\]|\\.)*)'/g)) keys.add(m[1].replace(/\\'/g, "'"));
  }
  // The catalog's templates: the diagnostics' messages (l10n.ts problemMessage).
  for (const { codes } of PROBLEM_CATALOG) for (const [, template] of Object.values(codes)) keys.add(template);
  // The core's quick-fix titles (English templates the editor words): every `title:` literal.
  for (const f of readdirSync(path.join(ROOT, 'src/core'), { recursive: true, encoding: 'utf8' }).filter((n) => n.endsWith('.ts'))) {
    for (const m of read(`src/core/${f}`).matchAll(/\btitle: (?:[\w.]+ \? )?'((?:[^'\\]|\\.)*)'(?: : '((?:[^'\\]|\\.)*)')?/g)) {
      for (const t of m.slice(1).filter((x) => x !== undefined)) keys.add(t.replace(/\\'/g, "'"));
    }
  }
  for (const variants of Object.values(PROBLEM_VARIANTS)) for (const t of Object.values(variants)) keys.add(t);
  for (const t of Object.values(DANGER_MESSAGES)) keys.add(t);
  for (const t of Object.values(DOCTOR_MESSAGES)) keys.add(t);
  for (const t of Object.values(PLAN_MESSAGES)) keys.add(t);
  for (const t of Object.values(WITHHELD_MESSAGES)) keys.add(t);
  for (const [, t] of Object.values(IMPORT_NOTES)) keys.add(t);
  for (const t of Object.values(IMPORT_REPORT_WORDS)) keys.add(t);
  for (const t of [...Object.values(MOVE_HOLD_TEMPLATES), ...Object.values(MOVE_BLOCK_TEMPLATES)]) keys.add(t);
  return [...keys];
}

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

/** A Chinese character or a Chinese (full-width) punctuation mark. */
const CJK = '[\\p{Script=Han}\\u3000-\\u303f\\uff01-\\uff1f\\u201c\\u201d]';
/** A placeholder that a number fills: named as one, or followed by a measure word (3 个服务器, 第 2 行). */
const COUNT = '\\{(?:count|limit|max|size|index|line|column)\\}|\\{\\w+\\}(?= *(?:[个项次条种行秒层]|字节))|(?<=第 *)\\{\\w+\\}';
// "DSH: " is a command's category as VS Code shows it in the palette, in both languages.
const TYPOGRAPHY: Array<[string, RegExp]> = [
  ['ASCII punctuation in a Chinese sentence', new RegExp(`\\p{Script=Han}[,:;]|(?<!DSH)[,:;] ?\\p{Script=Han}|\\p{Script=Han}\\.(?![.\\w/])|\\p{Script=Han}[()]|[()]\\p{Script=Han}`, 'u')],
  ['a space between Chinese and a number', new RegExp(`${CJK} +(\\d|${COUNT})|(\\d|${COUNT}) +${CJK}`, 'u')],
  ['a space beside Chinese punctuation', /[\uff0c\u3002\uff1a\uff1b\uff08\uff09\u3001\u201c] | [\uff0c\u3002\uff1a\uff1b\uff09\u3001\u201d]/u],
];

/** What is wrong with the typography of one zh-CN string (empty: nothing). */
function chineseTypography(text: string): string[] {
  return TYPOGRAPHY.filter(([, re]) => re.test(text)).map(([why]) => why);
}

describe('extension l10n (English + Simplified Chinese)', () => {
  const bundle = json('l10n/bundle.l10n.zh-cn.json');

  it('translates every message of the extension (all folders) and every problem template of the catalog', () => {
    const missing = messageKeys().filter((k) => !(k in bundle));
    assert.deepEqual(missing, [], 'add these keys to l10n/bundle.l10n.zh-cn.json');
  });

  it('has no key that nothing uses any more', () => {
    const used = new Set(messageKeys());
    assert.deepEqual(Object.keys(bundle).filter((k) => !used.has(k)), []);
  });

  it('words counts with real plural forms: no "(s)", no "N servers" for one, no clause about zero', () => {
    const keys = messageKeys();
    assert.deepEqual(keys.filter((k) => /\w\(s\)/.test(k)), []);
    assert.deepEqual(keys.filter((k) => /\b1 \w+s\b/.test(k) && !/\b1 (is|was)\b/.test(k)), []);
    assert.deepEqual(keys.filter((k) => /\(\{\d\} refused\)/.test(k)), []);
    // A message about a count has its singular sibling: "{0} servers ..." next to "1 server ...".
    const shape = (x: string) => x.replace(/\{\d\}/g, '{}');
    const shapes = keys.map(shape);
    for (const k of keys.filter((x) => /\{0\} (MCP )?(server|input value|skill|skill file)s\b/.test(x))) {
      const one = shape(k.replace(/\{0\} ((?:MCP )?)(server|input value|skill|skill file)s\b/, '1 $1$2').replace(/\bwere\b/, 'was'));
      assert.ok(shapes.includes(one) || shapes.some((x) => x.startsWith(one.slice(0, 12))), `no singular form next to "${k}" (looked for "${one}")`);
    }
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

  it('writes Chinese sentences with Chinese punctuation and no space between Chinese and a number', () => {
    const zh = { ...bundle, ...json('package.nls.zh-cn.json') };
    const offenders = Object.entries(zh).flatMap(([key, value]) => chineseTypography(value).map((why) => `${why} in ${JSON.stringify(value)} (key ${JSON.stringify(key)})`));
    assert.deepEqual(offenders, []);
  });

  it('follows the word list of docs/zh-cn-terms.md: no avoided word anywhere, one word for a refused state or count', () => {
    const zh = { ...bundle, ...json('package.nls.zh-cn.json') };
    const rows = read('docs/zh-cn-terms.md').split('\n').filter((l) => /^\| [^-|]/.test(l) && !l.startsWith('| English')).map((l) => l.split('|').slice(1, -1).map((c) => c.trim()));
    assert.ok(rows.length >= 10, 'the table is read');
    const avoided = rows.flatMap(([term, , not]) => not.split('、').filter(Boolean).map((word) => [term, word] as const));
    assert.ok(avoided.some(([, w]) => w === '你'), 'the list names what it avoids');
    const offenders = Object.entries(zh).flatMap(([key, value]) => avoided.filter(([, w]) => value.includes(w)).map(([term, w]) => `"${w}" (for ${term}) in ${JSON.stringify(value)} (key ${JSON.stringify(key)})`));
    assert.deepEqual(offenders, []);
    const states = Object.entries(bundle).filter(([key]) => /^(DSH: )?(\{0\}|1) refused$|^refused: /.test(key));
    assert.ok(states.length >= 3);
    assert.deepEqual(states.filter(([, value]) => !value.includes('已拒绝')), []);
  });

  it('declares the l10n folder in the manifest', () => {
    assert.equal(JSON.parse(read('package.json')).l10n, './l10n');
  });
});

describe('docs l10n (l10n/docs.zh-cn.json: the Chinese problem-code page only, not shipped)', () => {
  const bundle = json('l10n/bundle.l10n.zh-cn.json');
  const docs = json('l10n/docs.zh-cn.json');

  it('holds exactly the texts of the page the extension does not show (the shipped bundle has the rest)', () => {
    const wanted = pageKeys().filter((k) => !(k in bundle)).sort();
    assert.ok(wanted.length > 20, 'the fixes are docs-only');
    assert.deepEqual(Object.keys(docs).sort(), wanted);
  });

  it('keeps placeholders, and writes Chinese punctuation with no space between Chinese and a number', () => {
    for (const [key, value] of Object.entries(docs)) assert.deepEqual(placeholders(value), placeholders(key), `placeholders differ for "${key}"`);
    assert.deepEqual(Object.entries(docs).flatMap(([key, value]) => chineseTypography(value).map((why) => `${why} in ${JSON.stringify(value)} (key ${JSON.stringify(key)})`)), []);
  });

  it('is not in the .vsix: the allow-list ships the l10n bundles only', () => {
    const allowed = read('.vscodeignore').split('\n').filter((l) => l.startsWith('!')).map((l) => l.slice(1));
    assert.ok(allowed.includes('l10n/bundle.l10n.*.json'), allowed.join(' '));
    assert.deepEqual(allowed.filter((g) => g.startsWith('l10n/') && g !== 'l10n/bundle.l10n.*.json'), []);
  });
});
