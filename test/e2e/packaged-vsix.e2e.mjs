// UI flow with the PACKAGED extension: `npm run package`'s packaging (scripts/package-vsix.mjs:
// the .vscodeignore allow-list staged and made smaller, vsce offline, zopfli), packaged once per run,
// installed into a fresh code-server, then a user's first minutes on
// test/fixtures/ws-basic: the extension activates from the .vsix, the Problems panel shows its
// diagnostic with the README link code, and the export command works from the palette.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO, log } from '../harness/lib.mjs';
import { UI_WAIT_MS, packagedVsix } from '../harness/e2e-driver.mjs';
import { BUDGET_BYTES } from '../../scripts/recompress-vsix.mjs';
import { suiteEditor } from './hooks.mjs';

describe('e2e: the packaged .vsix installs and works (ws-basic)', function () {
  let vsix;
  let readmeTargets;
  const editor = suiteEditor(async () => {
    vsix = await packagedVsix(); // as `npm run package` ships it; packaged once per test run (every flow installs it)
    // What ships is what the .vsix holds (read from it, not from `vsce ls`, which walks the whole
    // repository, test servers' node_modules included: two minutes on a loaded machine).
    const unzipped = spawnSync('unzip', ['-Z1', vsix], { encoding: 'utf8' });
    assert.strictEqual(unzipped.status, 0, `unzip -Z1 ${vsix}: ${unzipped.stderr}`);
    const entries = unzipped.stdout.trim().split('\n').sort();
    log(`vsix ${vsix}: ${fs.statSync(vsix).size} bytes; entries: ${entries.join(' ')}`);
    // The allow-list: nothing but vsce's manifest, the bundle, the manifest and its strings, the icon, the schema and the docs.
    assert.ok(entries.includes('extension/dist/extension.js') && entries.includes('extension/package.json'), entries.join(' '));
    for (const f of entries) {
      assert.match(f, /^(extension\.vsixmanifest|\[Content_Types\]\.xml|extension\/(dist\/(extension|features)\.js|package\.json|package\.nls(\.[\w-]+)?\.json|l10n\/bundle\.l10n\.[\w-]+\.json|media\/icon\.png|media\/walkthrough\/[\w-]+\.(md|svg)|schemas\/.+|readme\.md|changelog\.md|LICENSE\.txt))$/, `unexpected file in the package: ${f}`);
    }
    // The Marketplace page is the user README, not the developer one.
    const readme = spawnSync('unzip', ['-p', vsix, 'extension/readme.md'], { encoding: 'utf8' }).stdout;
    assert.match(readme, /^# DSH Bridge\n/);
    assert.match(readme, /## Trust modes/);
    assert.doesNotMatch(readme, /npm (install|test|run)/, 'the packaged README talks to developers');
    // The Extensions view opens only http(s) links from a details page and loads only https
    // pictures: every picture and page the README names is in the repository, by absolute URL.
    readmeTargets = [...readme.matchAll(/(!?)\[[^\]]*\]\(([^)\s]+)\)/g)].map(([, image, url]) => ({ image: image === '!', url }));
    assert.ok(readmeTargets.some((t) => t.image) && readmeTargets.some((t) => /problem-codes\.md$/.test(t.url)), JSON.stringify(readmeTargets));
    for (const { image, url } of readmeTargets) {
      const m = new RegExp(`^https://github\\.com/dsh-bridge/dsh-bridge/${image ? 'raw' : 'blob'}/main/(.+)$`).exec(url);
      assert.ok(m, `the README's ${image ? 'picture' : 'link'} ${url} is not an absolute link into the repository`);
      assert.ok(fs.existsSync(path.join(REPO, m[1])), `the README names ${m[1]}, which the repository does not have`);
    }
    // The shipped l10n bundle is keyed by l10nKey (the lookup of src/extension/l10nLookup.ts reads
    // it; the zh-CN flow shows the words), and holds every translation of the repository's bundle.
    const shipped = JSON.parse(spawnSync('unzip', ['-p', vsix, 'extension/l10n/bundle.l10n.zh-cn.json'], { encoding: 'utf8' }).stdout);
    const source = JSON.parse(fs.readFileSync(path.join(REPO, 'l10n/bundle.l10n.zh-cn.json'), 'utf8'));
    assert.deepEqual([...shipped.translations].sort(), Object.values(source).sort());
    assert.match(shipped.keys, new RegExp(`^[\\w-]{${4 * shipped.translations.length}}$`));
    // The fixes of the problem-code page stay in the repository (its page, the CLI): the code links open them there.
    const fixes = JSON.parse(fs.readFileSync(path.join(REPO, 'l10n/docs.zh-cn.json'), 'utf8'));
    const features = spawnSync('unzip', ['-p', vsix, 'extension/dist/features.js'], { encoding: 'utf8', maxBuffer: 1 << 24 }).stdout;
    assert.ok(features.length > 100000, 'no features.js in the package');
    // (Their Chinese is in l10n/docs.zh-cn.json, which is not shipped: the bundle's translations are checked above.)
    // The fixes are sentences; the catalog's area names (titles, no full stop) ship with the catalog.
    const long = Object.keys(fixes).filter((english) => english.length >= 50 && english.endsWith('.'));
    assert.ok(long.length > 20);
    for (const english of long) assert.ok(!features.includes(english.slice(0, 40)), `the package ships the page text "${english.slice(0, 40)}"`);
    // What users download, held to the budget as `npm run package` holds it.
    assert.ok(fs.statSync(vsix).size <= BUDGET_BYTES, `the .vsix is ${fs.statSync(vsix).size} bytes`);
    return { vsix };
  });

  it('activates from the .vsix: Problems shows the refused server; export writes the declaration; palette titles say DSH once', async function () {
    const ws = await editor.openWorkspace('ws-basic');
    const problems = await editor.readProblems({ timeout: 60000 });
    const row = problems.find((p) => p.code === 'unsupported-transport');
    assert.ok(row, `no unsupported-transport row: ${JSON.stringify(problems.map((p) => p.text))}`);
    assert.equal(row.source, 'dsh-bridge');
    await editor.runCommand('DSH: Export MCP Servers');
    const decl = JSON.parse(fs.readFileSync(await editor.waitForWorkspaceFile('.dsh/declaration.json'), 'utf8'));
    assert.deepEqual(decl.servers.map((s) => s.name), ['files']);
    // The schema copy beside it comes from the .vsix's schemas/ file (read at run time, not bundled).
    // The shipped file is compact (the .vsix budget); the copy is written indented for people.
    const shipped = JSON.parse(fs.readFileSync(path.join(REPO, 'schemas/declaration.schema.json'), 'utf8'));
    assert.equal(fs.readFileSync(path.join(ws, '.dsh/declaration.schema.json'), 'utf8'), `${JSON.stringify(shipped, null, 2)}\n`);
    assert.ok(fs.existsSync(path.join(ws, '.vscode/mcp.json')));
    console.log(`      screenshot: ${await editor.screenshot('vsix-export')}`);
    // The picture of the user README (media/readme/status-and-problem.png, quantized with
    // pngquant): the Problems row with its code link, and the DSH status bar item.
    await editor.statusBarItem('dsh-bridge.status', { text: /DSH: 1 refused/ });
    console.log(`      screenshot: ${await editor.screenshot('readme-status-and-problem', { clip: { x: 0, y: 575, width: 1400, height: 325 } })}`);
    const titles = await editor.paletteTitles('DSH:', { waitFor: 'DSH: Open Declaration' });
    // Only the rows that fit are rendered: each title is also looked up with its own filter.
    for (const t of ['DSH: Export MCP Servers', 'DSH: Open Declaration', 'DSH: Verify Declaration', 'DSH: Probe MCP Servers']) {
      const shown = titles.includes(t) ? titles : await editor.paletteTitles(t, { waitFor: t });
      assert.ok(shown.includes(t), `${t} not in ${JSON.stringify(shown)}`);
    }
    assert.deepEqual(titles.filter((t) => /DSH.*DSH/.test(t)), [], 'a command title says DSH twice');
  });

  it('a problem code in the Problems panel links to its entry on the repository\'s page, from the installed extension', async function () {
    const page = editor.page;
    const row = (await editor.readProblems({ timeout: 60000 })).find((p) => p.code === 'unsupported-transport');
    // The https page of package.json's repository at the code's heading (opened in the browser, not here).
    assert.equal(row?.codeHref, 'https://github.com/dsh-bridge/dsh-bridge/blob/main/docs/problem-codes.md#unsupported-transport');
    // GitHub's anchor of "### `unsupported-transport`" is the code: the page has that heading.
    assert.match(fs.readFileSync(path.join(REPO, 'docs/problem-codes.md'), 'utf8'), /^### `unsupported-transport`$/m);
    const link = page.locator('.markers-panel .monaco-list-row a.monaco-link', { hasText: 'unsupported-transport' }).first();
    await editor.hoverFor(link, row.codeHref);
    console.log(`      screenshot: ${await editor.screenshot('vsix-problem-code-link')}`);
  });

  it('the Explorer menu groups the language-server command under DSH; the walkthrough opens', async function () {
    const page = editor.page;
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'README.md' }).first().click({ button: 'right' });
    const dsh = page.locator('.context-view .monaco-menu .action-item', { hasText: /^DSH$/ }).first();
    await dsh.waitFor({ state: 'visible', timeout: UI_WAIT_MS });
    await dsh.hover();
    await page.locator('.context-view .monaco-menu .action-item', { hasText: 'Which Language Server Handles This File?' }).first().waitFor({ state: 'visible', timeout: UI_WAIT_MS });
    console.log(`      screenshot: ${await editor.screenshot('vsix-explorer-dsh-menu')}`);
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');

    await editor.runCommand('Welcome: Open Walkthrough...');
    await editor.quickPickRows({ atLeast: 1 });
    await editor.quickPickRow('Get started with DSH Bridge').click();
    for (const step of ['Export your MCP servers', 'Enter input values', 'Choose a trust mode', 'Verify what DSH will mount']) {
      await page.locator('.gettingStartedContainer', { hasText: step }).first().waitFor({ state: 'visible', timeout: UI_WAIT_MS });
    }
    console.log(`      screenshot: ${await editor.screenshot('vsix-walkthrough')}`);
  });

  it('the installed extension\'s details page shows the README picture and links from the repository, by absolute URL', async function () {
    const page = editor.page;
    await editor.runCommand('Extensions: Show Installed Extensions');
    const entry = page.locator('.extensions-viewlet .monaco-list-row', { hasText: 'DSH Bridge' }).first();
    await entry.waitFor({ state: 'visible', timeout: UI_WAIT_MS });
    await entry.click();
    await page.locator('.extension-editor .name', { hasText: 'DSH Bridge' }).first().waitFor({ timeout: UI_WAIT_MS });
    // The details are a webview (an iframe in an iframe, outside the editor's DOM): the frame that renders the README.
    let details;
    for (const until = Date.now() + UI_WAIT_MS; !details;) {
      for (const frame of page.frames()) {
        if (await frame.locator('h2', { hasText: 'Trust modes' }).count().catch(() => 0)) details = frame;
      }
      if (!details && Date.now() > until) throw new Error('the details page never rendered the README');
      if (!details) await new Promise((r) => setTimeout(r, 500));
    }
    const images = await details.locator('img').evaluateAll((els) => els.map((el) => el.getAttribute('src')));
    const links = await details.locator('a[href]').evaluateAll((els) => els.map((el) => ({ text: el.textContent.trim(), href: el.getAttribute('href') })));
    console.log(`      details page: images ${JSON.stringify(images)}; links ${JSON.stringify(links.map((l) => l.href))}`);
    // What vsce wrote into the packaged README is what the page renders (offline here: the picture itself cannot load).
    assert.deepEqual(images, readmeTargets.filter((t) => t.image).map((t) => t.url));
    for (const { url } of readmeTargets.filter((t) => !t.image)) assert.ok(links.some((l) => l.href === url), `the details page has no link to ${url}: ${JSON.stringify(links)}`);
    assert.deepEqual(links.filter((l) => !/^https:\/\//.test(l.href) && !l.href.startsWith('#')), [], 'a link the details page would not open');
    console.log(`      screenshot: ${await editor.screenshot('vsix-details-page')}`);
  });
});
