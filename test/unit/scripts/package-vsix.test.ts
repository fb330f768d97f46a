import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { l10nKey } from '../../../src/extension/l10nKey';

const ROOT = path.resolve(__dirname, '../../..');

type Packaging = {
  rekeyBundle(bundle: Record<string, string>, key: (message: string) => string): Record<string, string>;
  changelogForVsix(text: string, historyUrl: string): string;
};

describe('the release packaging (scripts/package-vsix.mjs)', () => {
  let rekeyBundle: Packaging['rekeyBundle'];
  let changelogForVsix: Packaging['changelogForVsix'];
  before(async () => {
    ({ rekeyBundle, changelogForVsix } = await import(path.join(ROOT, 'scripts/package-vsix.mjs')) as Packaging);
  });

  it('rekeys the zh-CN bundle by l10nKey without a collision, each translation under the key of its English text', () => {
    const bundle = JSON.parse(readFileSync(path.join(ROOT, 'l10n/bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
    const shipped = rekeyBundle(bundle, l10nKey);
    assert.equal(Object.keys(shipped).length, Object.keys(bundle).length);
    for (const [message, translation] of Object.entries(bundle)) assert.equal(shipped[l10nKey(message)], translation, message);
  });

  it('refuses two messages with one key rather than ship a wrong translation', () => {
    const firstLetter = (message: string) => message.slice(0, 1);
    assert.throws(() => rekeyBundle({ 'Approve': '批准', 'Apply': '应用' }, firstLetter), /same l10n key A/);
  });

  it('l10nKey is the first five base64url characters of the SHA-256 of the English text', () => {
    assert.match(l10nKey('Approve'), /^[\w-]{5}$/);
    assert.notEqual(l10nKey('Approve'), l10nKey('Approve '));
    for (const text of ['Approve', 'Exported {0} MCP servers to DSH.', '导出']) assert.equal(l10nKey(text), createHash('sha256').update(text, 'utf8').digest('base64url').slice(0, 5));
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
