// Reading a tree view of the workbench (the servers view) as the user sees it.
import { UI_WAIT_MS } from '../harness/e2e-driver.mjs';
import { sleep } from '../harness/lib.mjs';

/** The pane of the view titled `title`, expanded, with its header. */
export async function openView(page, title) {
  const header = page.locator('.pane-header', { hasText: title }).first();
  await header.waitFor({ state: 'visible', timeout: 60000 });
  if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
  return { header, pane: page.locator('.pane', { has: header }).first() };
}

/** The description beside a row's label, once it matches `re` (its last text in the error otherwise). */
export async function rowDescription(row, re, what, timeout = UI_WAIT_MS) {
  let last = '';
  for (const until = Date.now() + timeout; ;) {
    last = (await row.locator('.label-description').first().innerText().catch(() => '')).trim();
    if (re.test(last)) return last;
    if (Date.now() > until) throw new Error(`${what}: the row shows "${last}", expected ${re}`);
    await sleep(300);
  }
}

/** The rows of a view's pane, or the first whose text matches `hasText`. */
export function viewRow(pane, hasText) {
  const rows = pane.locator('.pane-body .monaco-list-row');
  return hasText === undefined ? rows : pane.locator('.pane-body .monaco-list-row', { hasText }).first();
}

/** [label, description] of every row the view shows now. */
export async function viewRows(pane) {
  const rows = viewRow(pane);
  const out = [];
  for (let i = 0; i < await rows.count(); i++) {
    const row = rows.nth(i);
    out.push([
      (await row.locator('.label-name').first().innerText().catch(() => '')).trim(),
      (await row.locator('.label-description').first().innerText().catch(() => '')).trim(),
    ]);
  }
  return out;
}
