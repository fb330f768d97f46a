import * as assert from 'node:assert/strict';
import { canonicalHash } from '../../../../src/core/json/canonicalJson';
import { DeclarationSchema } from '../../../../src/core/declaration/declarationModel';
import { lspDeclarationSection, lspSectionPinMatches, lspConfigured } from '../../../../src/core/lsp/lspSection';

/** The declaration's `lsp` field as the model checks it. */
const LspSectionSchema = DeclarationSchema.shape.lsp;

describe('sections: the lsp section', () => {
  it('is configured only for a non-empty value', () => {
    assert.equal(lspConfigured(undefined), false);
    assert.equal(lspConfigured(null), false);
    assert.equal(lspConfigured({}), false);
    assert.equal(lspConfigured({ a: {} }), true);
    assert.equal(lspConfigured('x'), true);
  });

  it('pins {servers, registersAll} with the canonical hash, and the check sees any change', () => {
    const section = lspDeclarationSection({ servers: {}, registersAll: false });
    assert.equal(section.pin, canonicalHash({ servers: {}, registersAll: false }));
    assert.ok(lspSectionPinMatches(section));
    assert.ok(!lspSectionPinMatches({ ...section, registersAll: true }));
    assert.ok(!lspSectionPinMatches({ ...section, pin: 'sha256:00' }));
    assert.ok(LspSectionSchema.safeParse(section).success, 'the section is what the model types');
    assert.ok(!LspSectionSchema.safeParse(null).success);
    assert.ok(!LspSectionSchema.safeParse([section]).success);
    assert.ok(!LspSectionSchema.safeParse({ ...section, extra: 1 }).success, 'no field outside the model');
  });
});

describe('sections: no LSP secret is copied into the workspace', () => {
  it('credential-named env values become references to the DSH environment', () => {
    const section = lspDeclarationSection({
      registersAll: true,
      servers: { ts: { command: '/usr/bin/tsserver', args: [], env: { API_TOKEN: 'canary-lsp-1', LOG_LEVEL: 'info' }, extensionToLanguage: { '.ts': 'typescript' } } as never },
    });
    assert.deepEqual(section.servers.ts.env, { API_TOKEN: [{ env: 'API_TOKEN' }], LOG_LEVEL: 'info' });
    assert.ok(!JSON.stringify(section).includes('canary-lsp-1'));
    assert.ok(lspSectionPinMatches(section));
  });
});
