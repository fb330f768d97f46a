// The manifest side of language servers and skills: settings schema vs the core's rules, commands,
// and the Chinese wording of every LSP / skill problem template.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { LSP_DEFAULT_LIMITS, LSP_EXTENSION_PATTERN, MAX_TIMER_DELAY_MS } from '../../../src/core/lsp/lspModel';
import { LSP_PROBLEM_CODES } from '../../../src/core/lsp/lspCodes';
import { normalizeLspExtension } from '../../../src/core/lsp/lspRouting';
import { SKILL_PROBLEM_CODES, SKILL_TRUST_PROBLEM_CODES } from '../../../src/core/skills/skillCodes';

const ROOT = path.resolve(__dirname, '../../..');
const json = (rel: string) => JSON.parse(readFileSync(path.join(ROOT, rel), 'utf8')) as Record<string, unknown>;
type Schema = Record<string, any>;

function setting(id: string): Schema {
  const categories = (json('package.json').contributes as Schema).configuration as Schema[];
  const found = categories.map((c) => c.properties?.[id]).find(Boolean);
  assert.ok(found, `${id} is not contributed`);
  return found;
}

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('manifest: dsh.lsp.servers and dsh.skills.customRoots', () => {
  it('dsh.lsp.servers is resource-scoped, restricted in untrusted workspaces, and its limits carry DSH defaults and ranges', () => {
    const s = setting('dsh.lsp.servers');
    assert.equal(s.scope, 'resource');
    assert.deepEqual(s.default, {});
    const restricted = ((json('package.json').capabilities as Schema).untrustedWorkspaces as Schema).restrictedConfigurations as string[];
    assert.ok(restricted.includes('dsh.lsp.servers'));
    const entry = s.additionalProperties;
    assert.deepEqual([...entry.required].sort(), ['command', 'extensions']);
    for (const [key, value] of Object.entries(LSP_DEFAULT_LIMITS)) {
      const limit = entry.properties[key];
      assert.equal(limit.default, value, key);
      assert.equal(limit.type, 'integer', key);
      assert.equal(limit.minimum, 1, key);
      if (key === 'shutdownTimeoutMs' || key === 'killGraceMs') assert.equal(limit.maximum, MAX_TIMER_DELAY_MS, key);
    }
    for (const key of ['command', 'args', 'env', 'extensions', 'initializationOptions', 'configuration']) assert.ok(entry.properties[key], key);
  });

  it('the schema\'s extension-key pattern accepts exactly the keys the core accepts (after its normalization)', () => {
    const pattern = new RegExp(setting('dsh.lsp.servers').additionalProperties.properties.extensions.propertyNames.pattern as string);
    const samples = ['.ts', 'TS', '.d.ts', 'd.ts', '.', '', 'a/b', 'a\\b', '..x', '.JSX', 'tar.gz', ' .ts'];
    for (const key of samples) assert.equal(pattern.test(key), LSP_EXTENSION_PATTERN.test(normalizeLspExtension(key)), JSON.stringify(key));
    fc.assert(fc.property(fc.string({ maxLength: 6 }), (key) => {
      assert.equal(pattern.test(key), LSP_EXTENSION_PATTERN.test(normalizeLspExtension(key)), JSON.stringify(key));
    }));
  });

  it('dsh.skills.customRoots is a machine setting: no repository can add a root', () => {
    const s = setting('dsh.skills.customRoots');
    assert.equal(s.scope, 'machine');
    assert.equal(s.type, 'array');
    assert.equal(s.items.type, 'string');
  });

  it('contributes both commands in category DSH, with activation events', () => {
    const pkg = json('package.json') as Schema;
    const commands = pkg.contributes.commands as Schema[];
    for (const id of ['dsh.whichLanguageServer', 'dsh.reviewSkillRoots']) {
      const c = commands.find((x) => x.command === id);
      assert.ok(c, id);
      assert.equal(c.category, 'DSH');
      assert.ok(pkg.activationEvents.includes(`onCommand:${id}`), id);
    }
    const en = json('package.nls.json');
    assert.equal(en['command.whichLanguageServer'], 'Which Language Server Handles This File?');
    assert.equal(en['command.reviewSkillRoots'], 'Review Skill Roots');
    assert.ok(pkg.activationEvents.includes('workspaceContains:.dsh/skills'));
    assert.ok(!pkg.activationEvents.includes('*'));
  });
});

describe('l10n: every LSP and skill problem template in Simplified Chinese', () => {
  const bundle = json('l10n/bundle.l10n.zh-cn.json') as Record<string, string>;
  const templates = [LSP_PROBLEM_CODES, SKILL_PROBLEM_CODES, SKILL_TRUST_PROBLEM_CODES].flatMap((t) => Object.values(t).map(([, template]) => template as string));

  it('has each template, with the same placeholders', () => {
    assert.ok(templates.length > 25);
    for (const t of templates) {
      assert.ok(t in bundle, `missing in l10n/bundle.l10n.zh-cn.json: ${t}`);
      assert.deepEqual(placeholders(bundle[t]), placeholders(t), t);
    }
  });
});
