// A Simplified Chinese language pack for code-server, built for a run from the translations of
// the npm package @codingame/monaco-vscode-language-pack-zh-hans (scripts/setup-language-pack.sh).
//
// Why it is needed: VS Code resolves a display language only when a language pack for it is
// installed; without one, `--locale zh-cn` leaves the workbench and the extension host in English
// (vscode.env.language "en"), so no extension's package.nls.zh-cn.json or l10n bundle is used.
//
// What it carries: the packaged translations of VS Code's built-in extensions (keyed files,
// usable as they are). VS Code's own workbench strings stay English: the package ships them as
// one unkeyed array ordered for its own VS Code build, which cannot be mapped onto the message
// keys of the code-server build here, so the pack's "vscode" translation is empty.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { HarnessError, REPO, cacheDir, installVsix } from './lib.mjs';

function zhLanguagePackVsix(run) {
  const source = path.join(cacheDir(), 'language-pack-zh-hans', 'package');
  const index = path.join(source, 'index.js');
  if (!fs.existsSync(index)) throw new HarnessError(`no zh-hans translations at ${source}: run scripts/setup-language-pack.sh`);
  const manifest = JSON.parse(/const manifest = (\{.*?\});\n/s.exec(fs.readFileSync(index, 'utf8'))[1]);
  const localization = manifest.contributes.localizations[0];
  const dir = path.join(run.dir, 'language-pack-zh-hans');
  fs.mkdirSync(path.join(dir, 'translations', 'extensions'), { recursive: true });
  const translations = [{ id: 'vscode', path: './translations/main.i18n.json' }];
  fs.writeFileSync(path.join(dir, 'translations', 'main.i18n.json'), JSON.stringify({ version: '1.0.0', contents: {} }));
  for (const t of localization.translations) {
    if (t.id === 'vscode') continue;
    const file = path.join(source, t.path);
    if (!fs.existsSync(file)) continue;
    fs.copyFileSync(file, path.join(dir, t.path));
    translations.push(t);
  }
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({
    name: 'vscode-language-pack-zh-hans-test',
    displayName: 'Chinese (Simplified) language pack (test build)',
    description: 'Built by the DSH Bridge test harness',
    publisher: 'dsh-bridge-test',
    version: '1.0.0',
    license: 'MIT',
    engines: { vscode: '^1.101.0' },
    categories: ['Language Packs'],
    contributes: { localizations: [{ languageId: localization.languageId, languageName: localization.languageName, localizedLanguageName: localization.localizedLanguageName, translations }] },
  }, null, 2));
  fs.writeFileSync(path.join(dir, 'README.md'), '# zh-hans language pack (test build)\n');
  fs.writeFileSync(path.join(dir, 'LICENSE'), 'MIT\n');
  const vsix = path.join(run.dir, 'language-pack-zh-hans.vsix');
  const r = spawnSync(path.join(REPO, 'node_modules', '.bin', 'vsce'), ['package', '--no-dependencies', '--allow-missing-repository', '--out', vsix],
    { cwd: dir, encoding: 'utf8', timeout: 120000 });
  if (r.status !== 0) throw new HarnessError(`packaging the language pack failed:\n${r.stdout}\n${r.stderr}`);
  return vsix;
}

/**
 * Builds and installs the pack into the run, and records it in <user-data>/languagepacks.json,
 * the file VS Code's server reads at start to resolve `--locale` (the editor writes it itself only
 * when a running workbench lists the installed languages, which is after the start that needs it).
 */
export function installZhLanguagePack(run) {
  installVsix(run, zhLanguagePackVsix(run));
  const id = 'dsh-bridge-test.vscode-language-pack-zh-hans-test';
  const installed = fs.readdirSync(run.extensionsDir).find((d) => d.startsWith(`${id}-`));
  if (!installed) throw new HarnessError(`the language pack is not in ${run.extensionsDir}`);
  const root = path.join(run.extensionsDir, installed);
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const localization = manifest.contributes.localizations[0];
  const translations = Object.fromEntries(localization.translations.map((t) => [t.id, path.join(root, t.path)]));
  fs.writeFileSync(path.join(run.userData, 'languagepacks.json'), JSON.stringify({
    [localization.languageId]: {
      hash: crypto.createHash('md5').update(id).update(manifest.version).digest('hex'),
      label: localization.localizedLanguageName,
      extensions: [{ extensionIdentifier: { id }, version: manifest.version }],
      translations,
    },
  }, null, 2));
}
