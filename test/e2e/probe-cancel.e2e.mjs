// UI flow with the PACKAGED extension: "Probe MCP Servers" on three real servers, one of which
// never answers (the repository's MCP SDK fixture with --hang), one real server from npm
// (@modelcontextprotocol/server-everything) and one that exits (the fixture with --exit-early).
// The progress notification names the server being probed with its place ("1 of 3: slow"); Cancel
// stops it (its process is gone from /proc), nothing is recorded for it in the host store, the
// result names what was cancelled, and the failed server's warning is on its row and its entry.
// Screenshots of the progress and the result are kept; the same flow again in Simplified Chinese.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO, sleep } from '../harness/lib.mjs';
import { UI_WAIT_MS } from '../harness/e2e-driver.mjs';
import { suiteEditor } from './hooks.mjs';
import { openView, viewRow, viewRows } from './treeView.mjs';

/** What the flow reads, in each display language (VS Code's own words, "Cancel" and "{0}: {1}", stay English in this workbench). */
const WORDS = {
  en: {
    view: 'MCP Servers for DSH', probe: 'Probe MCP Servers', probeButton: 'Probe',
    question: /Probe these MCP servers of ws-tools to list their tools\?/,
    probing: /^Probing the MCP servers of ws-tools\.\.\.: 1 of 3: slow$/,
    result: /^Probed 1 MCP server of ws-tools: \d+ tools\. 1 server could not be probed: see Problems\. Probe cancelled: "slow" was not probed\.$/,
    resultStart: /^Probed 1 MCP server of ws-tools/,
    notExported: 'not exported', withTools: /^not exported · \d+ tools · ~[\d,]+ tokens$/, failed: 'not exported \u00b7 probe failed',
    problem: /^MCP server "broken" did not start when probed: /,
  },
  'zh-cn': {
    view: 'DSH 的 MCP 服务器', probe: '探测 MCP 服务器', probeButton: '探测',
    question: /要探测ws-tools的这些 MCP 服务器以列出其工具吗？/,
    probing: /^正在探测 ws-tools 的 MCP 服务器\.\.\.: 第1个，共3个：slow$/,
    result: /^已探测 ws-tools 的1个 MCP 服务器：\d+个工具。1个服务器无法探测：请查看“问题”面板。探测已取消：“slow”未探测。$/,
    resultStart: /^已探测 ws-tools 的1个 MCP 服务器/,
    notExported: '未导出', withTools: /^未导出 · \d+个工具 · 约[\d,]+个令牌$/, failed: '未导出 \u00b7 探测失败',
    problem: /^MCP 服务器“broken”在探测时未能启动：/,
  },
};
const FIXTURE = path.join(REPO, 'test/fixtures/mcp-servers/tool-fixture.mjs');
const EVERYTHING = path.join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** Live processes (any parent: the servers are the extension host's children) whose argv contains `marker`. */
function processesWith(marker) {
  const out = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      const argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (argv.includes(marker)) out.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

/** The probe results the extension told the user, from its log (DSH Bridge.log of every window). */
function toldTheUser(userData) {
  const logs = path.join(userData, 'logs');
  const files = fs.readdirSync(logs, { recursive: true }).filter((f) => String(f).endsWith(path.join('dsh-bridge.dsh-bridge', 'DSH Bridge.log')));
  return files.flatMap((f) => fs.readFileSync(path.join(logs, String(f)), 'utf8').split('\n').filter((l) => l.includes('probe of ws-tools: told the user:')));
}

async function until(predicate, what, timeout = UI_WAIT_MS) {
  for (const end = Date.now() + timeout; !(await predicate());) {
    if (Date.now() > end) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await sleep(250);
  }
}


for (const locale of ['en', 'zh-cn']) {
  const words = WORDS[locale];
  const shot = (name) => (locale === 'en' ? name : `${name}-${locale}`);
  describe(`e2e: cancelling a probe in the installed .vsix (${locale}): per-server progress, Cancel stops the slow server`, function () {
    const editor = suiteEditor(locale === 'en' ? {} : { locale }); // the packaged .vsix, installed
    // A marker only the slow server's command line carries, to find its process in /proc.
    const marker = `probe-cancel-slow-${locale}-${process.pid}-${Date.now()}`;

    it('names the server being probed with its count; Cancel stops it, records nothing for it and says so; the failed server warns on its row and entry', async function () {
      assert.ok(fs.existsSync(EVERYTHING), `${EVERYTHING} is not installed (npm ci)`);
      const servers = {
        slow: { command: process.execPath, args: [FIXTURE, '--hang', '--stderr', marker] },
        everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] },
        broken: { command: process.execPath, args: [FIXTURE, '--stderr', 'fixture: port 7 is taken', '--exit-early'] },
      };
      await editor.openWorkspace('ws-tools', { prepare: (folder) => fs.writeFileSync(path.join(folder, '.vscode/mcp.json'), `${JSON.stringify({ servers }, null, 2)}\n`) });
      const page = editor.page;
      const { header, pane } = await openView(page, words.view);
      await until(async () => (await viewRows(pane)).length === 3, 'the three rows');

      await header.hover();
      await header.locator(`.action-label[aria-label="${words.probe}"]`).click();
      assert.match(await editor.dialog(), words.question);
      await editor.clickDialogButton(words.probeButton);

      // Two at once: "slow" and "everything"; then "broken" while "slow" still runs; once both are
      // done, the notification names the one still being probed, "slow", with its place.
      const probing = words.probing;
      const shown = await editor.waitForNotification(probing, { timeout: 60000 });
      console.log(`      progress: ${shown}`);
      assert.equal(processesWith(marker).length, 1, 'the slow server is not running while it is probed');
      await editor.notifications({ keepOpen: true });
      console.log(`      screenshot: ${await editor.screenshot(shot('probe-cancel-progress'))}`);
      await editor.clickNotificationButton(probing, 'Cancel');

      const note = await editor.waitForNotification(words.resultStart, { timeout: UI_WAIT_MS });
      console.log(`      notification: ${note}`);
      assert.match(note, words.result);
      // The slow server's process is gone (stopped with its process group), at once.
      await until(() => processesWith(marker).length === 0, 'the slow server to be stopped', 5000);

      // The host store records the probe of "everything", nothing of "slow" (nor of "broken").
      const probesDir = path.join(editor.run.dshHome, 'bridge/probes');
      const records = fs.readdirSync(probesDir).map((f) => JSON.parse(fs.readFileSync(path.join(probesDir, f), 'utf8')));
      assert.equal(records.length, 1, JSON.stringify(records));
      assert.deepEqual(Object.keys(records[0].servers), ['everything']);

      // The rows: tools for "everything", the failure on "broken" (a warning), nothing for "slow".
      await until(async () => words.withTools.test((await viewRows(pane)).find(([l]) => l === 'everything')?.[1] ?? ''), 'the tools of everything');
      const rows = await viewRows(pane);
      assert.equal(rows.find(([l]) => l === 'slow')[1], words.notExported);
      assert.match(rows.find(([l]) => l === 'everything')[1], words.withTools);
      assert.equal(rows.find(([l]) => l === 'broken')[1], words.failed);
      const brokenRow = viewRow(pane, /^broken/);
      assert.equal(await brokenRow.locator('.codicon-warning').count(), 1, 'the failed probe\'s row has no warning icon');
      const slowRow = viewRow(pane, /^slow/);
      assert.equal(await slowRow.locator('.codicon-warning').count(), 0, 'the cancelled server is shown as failed');
      // One result, told once: the extension logs each result it shows. (The workbench's notification
      // center has listed one such message twice now and then, with one call behind it: the log is the
      // extension's count; the center must show it.)
      assert.equal(toldTheUser(editor.run.userData).length, 1, JSON.stringify(toldTheUser(editor.run.userData)));
      assert.ok((await editor.notifications({ keepOpen: true })).some((t) => words.resultStart.test(t)));
      console.log(`      screenshot: ${await editor.screenshot(shot('probe-cancel-result'))}`);
      await editor.runCommand('Notifications: Hide Notifications');

      // The entry: a warning on "broken" in mcp.json, none about "slow".
      const problems = await editor.readProblems({ timeout: UI_WAIT_MS });
      const probeProblems = problems.filter((p) => /^probe-/.test(p.code));
      assert.deepEqual(probeProblems.map((p) => [p.code, p.severity]), [['probe-did-not-start', 'warning']], JSON.stringify(problems));
      assert.match(probeProblems[0].message, words.problem);
      console.log(`      screenshot: ${await editor.screenshot(shot('probe-cancel-problems'))}`);
    });
  });
}
