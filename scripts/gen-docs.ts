// Writes docs/problem-codes.md and docs/problem-codes.zh-cn.md (src/core/app/problemCodesPage.ts:
// every code of the catalog with what to do about it; in Chinese, every text as
// l10n/bundle.l10n.zh-cn.json translates it), so the repository has the pages the diagnostics'
// code links open; the editor writes the same page, in its display language, into its storage when
// a code is clicked. `--check` exits 1 when a page is out of date. docs/session-plan.md is written
// by hand; this checks that its table has a row for every reason code of the plan, and no other.
import { readFileSync, writeFileSync } from 'node:fs';
import { PLAN_MESSAGES } from '../src/core/app/planReasons';
import { problemCodesPage } from '../src/core/app/problemCodesPage';

const zhBundle = JSON.parse(readFileSync(new URL('../l10n/bundle.l10n.zh-cn.json', import.meta.url), 'utf8')) as Record<string, string>;
const zh = (english: string): string => {
  if (!Object.hasOwn(zhBundle, english)) throw new Error(`no translation of "${english}" in l10n/bundle.l10n.zh-cn.json`);
  return zhBundle[english];
};

const PAGES: Array<{ file: string; text: string }> = [
  { file: 'docs/problem-codes.md', text: problemCodesPage(undefined, ['In Simplified Chinese: [problem-codes.zh-cn.md](problem-codes.zh-cn.md).']) },
  { file: 'docs/problem-codes.zh-cn.md', text: problemCodesPage(zh, ['显示语言为简体中文时，编辑器链接到本页。English: [problem-codes.md](problem-codes.md).']) },
];

let stale = false;
for (const { file, text } of PAGES) {
  const url = new URL(`../${file}`, import.meta.url);
  let current = '';
  try {
    current = readFileSync(url, 'utf8');
  } catch {
    // not written yet
  }
  if (text === current) continue;
  if (process.argv.includes('--check')) {
    console.error(`${file} is out of date: run npm run docs`);
    stale = true;
  } else {
    writeFileSync(url, text);
  }
}
const planPage = readFileSync(new URL('../docs/session-plan.md', import.meta.url), 'utf8');
const documented = new Set([...planPage.matchAll(/^\| `([a-z-]+)` \| /gm)].map((m) => m[1]));
const codes = new Set(Object.keys(PLAN_MESSAGES));
for (const [code, where] of [...[...codes].filter((c) => !documented.has(c)).map((c) => [c, 'has no row'] as const), ...[...documented].filter((c) => !codes.has(c)).map((c) => [c, 'has a row of no reason code'] as const)]) {
  console.error(`docs/session-plan.md ${where}: ${code}`);
  stale = true;
}
if (stale) process.exit(1);
