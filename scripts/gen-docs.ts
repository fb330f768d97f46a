// Writes docs/problem-codes.md (src/core/app/problemCodesPage.ts: every code of the catalog with
// what to do about it), so the repository has the page the diagnostics' code links open; the
// editor writes the same page into its storage when a code is clicked. `--check` exits 1 when the
// page is out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import { problemCodesPage } from '../src/core/app/problemCodesPage';

const pageUrl = new URL('../docs/problem-codes.md', import.meta.url);
let current = '';
try {
  current = readFileSync(pageUrl, 'utf8');
} catch {
  // not written yet
}
const updated = problemCodesPage();
if (process.argv.includes('--check')) {
  if (updated !== current) {
    console.error('docs/problem-codes.md is out of date: run npm run docs');
    process.exit(1);
  }
} else if (updated !== current) {
  writeFileSync(pageUrl, updated);
}
