import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { l10nKey } from '../../../src/extension/l10nKey';

const ROOT = path.resolve(__dirname, '../../..');

type Packaging = {
  shippedBundle(bundle: Record<string, string>, key: (message: string) => string): { keys: string; translations: string[] };
  changelogForVsix(text: string, historyUrl: string): string;
  shortNlsKeys(nls: Record<string, string>): Map<string, string>;
  withShortNlsKeys(json: string, short: Map<string, string>): string;
  nlsWithShortKeys(nls: Record<string, string>, short: Map<string, string>): Record<string, string>;
};

describe('the release packaging (scripts/package-vsix.mjs)', () => {
  let shippedBundle: Packaging['shippedBundle'];
  let changelogForVsix: Packaging['changelogForVsix'];
  let packaging: Packaging;
  before(async () => {
    packaging = await import(path.join(ROOT, 'scripts/package-vsix.mjs')) as Packaging;
    ({ shippedBundle, changelogForVsix } = packaging);
  });

  it('shortens the manifest\'s placeholder keys alike in package.json and each package.nls file: every placeholder still names its text', () => {
    const json = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
    const english = JSON.parse(json('package.nls.json')) as Record<string, string>;
    const short = packaging.shortNlsKeys(english);
    const manifest = packaging.withShortNlsKeys(json('package.json'), short);
    const placeholders = (text: string) => [...text.matchAll(/"%([^"%]+)%"/g)].map((m) => m[1]);
    const before = placeholders(json('package.json'));
    const after = placeholders(manifest);
    assert.ok(before.length > 50 && after.length === before.length);
    assert.ok(after.every((key) => key.length <= 2), after.join());
    for (const file of ['package.nls.json', 'package.nls.zh-cn.json']) {
      const nls = JSON.parse(json(file)) as Record<string, string>;
      const shipped = packaging.nlsWithShortKeys(nls, short);
      before.forEach((key, i) => assert.equal(shipped[after[i]], nls[key], `${file}: ${key}`));
    }
    assert.throws(() => packaging.nlsWithShortKeys({ 'no.such.key': 'x' }, short), /no\.such\.key is not in package\.nls\.json/);
  });

  it('rekeys the zh-CN bundle by l10nKey without a collision, each translation at the place of the key of its English text', () => {
    const bundle = JSON.parse(readFileSync(path.join(ROOT, 'l10n/bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
    const shipped = shippedBundle(bundle, l10nKey);
    assert.equal(shipped.translations.length, Object.keys(bundle).length);
    assert.equal(shipped.keys.length, 4 * shipped.translations.length);
    for (const [message, translation] of Object.entries(bundle)) {
      assert.equal(shipped.translations[shipped.keys.indexOf(l10nKey(message)) / 4], translation, message);
    }
  });

  it('refuses two messages with one key rather than ship a wrong translation', () => {
    const firstLetter = (message: string) => message.slice(0, 1);
    assert.throws(() => shippedBundle({ 'Approve': '批准', 'Apply': '应用' }, firstLetter), /same l10n key A/);
  });

  it('l10nKey is the first four base64url characters of the SHA-256 of the English text', () => {
    assert.match(l10nKey('Approve'), /^[\w-]{4}$/);
    assert.notEqual(l10nKey('Approve'), l10nKey('Approve '));
    for (const text of ['Approve', 'Exported {0} MCP servers to DSH.', '导出']) assert.equal(l10nKey(text), createHash('sha256').update(text, 'utf8').digest('base64url').slice(0, 4));
  });

  it('ships the top section\'s heading with a link to its entries, and points at the earlier ones', () => {
    const text = '# Changelog\n\nIntro.\n\n## [Unreleased]\n\n### Added\n\n- New.\n\n## [0.2.0] - 2026-12-01\n\n- Two.\n\n## [0.1.0] - 2026-11-30\n\n- One.\n';
    const shipped = changelogForVsix(text, 'https://example.test/CHANGELOG.md');
    assert.equal(shipped, '# Changelog\n\nIntro.\n\n## [Unreleased]\n\nWhat changed in this version: see the [changelog](https://example.test/CHANGELOG.md#unreleased).\n'
      + '\n## Earlier versions\n\n0.2.0, 0.1.0: see the [full changelog](https://example.test/CHANGELOG.md).\n');
    const released = changelogForVsix('# Changelog\n\n## [0.2.0] - 2026-12-01\n\n- Two.\n', 'https://example.test/CHANGELOG.md');
    assert.equal(released, '# Changelog\n\n## [0.2.0] - 2026-12-01\n\nWhat changed in this version: see the [changelog](https://example.test/CHANGELOG.md#020---2026-12-01).\n');
  });

  it('the real changelog: its preamble and top heading, none of its entries', () => {
    const text = readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');
    const shipped = changelogForVsix(text, 'https://example.test/CHANGELOG.md');
    const heads = [...text.matchAll(/^## .*$/gm)];
    assert.ok(shipped.startsWith(text.slice(0, heads[0].index).trimEnd()));
    assert.ok(shipped.includes(heads[0][0]));
    assert.doesNotMatch(shipped, /^- /m);
  });
});
