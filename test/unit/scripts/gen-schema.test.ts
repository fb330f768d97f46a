import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod/mini';
import { DeclarationSchema } from '../../../src/core/declaration/declarationModel';

const ROOT = path.resolve(__dirname, '../../..');

describe('the declaration\'s schema and its doc: what the zod model says (gen-schema.ts)', () => {
  it('schemas/declaration.schema.json is, whole and byte for byte, what the zod model generates', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/gen-schema.ts', '--check'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    // What ships is the model's schema, and the committed file's definitions are the model's own.
    const committed = JSON.parse(readFileSync(path.join(ROOT, 'schemas/declaration.schema.json'), 'utf8'));
    const { $schema, ...generated } = z.toJSONSchema(DeclarationSchema, { target: 'draft-7' }) as Record<string, unknown>;
    assert.equal($schema, committed.$schema);
    for (const [key, value] of Object.entries(generated)) assert.deepEqual(committed[key], value, key);
  });

  it('docs/declaration.md names every field of the declaration model', () => {
    const doc = readFileSync(path.join(ROOT, 'docs/declaration.md'), 'utf8');
    const names = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (typeof node !== 'object' || node === null) return;
      const properties = (node as { properties?: Record<string, unknown> }).properties;
      if (properties) for (const key of Object.keys(properties)) names.add(key);
      for (const value of Object.values(node)) walk(value);
    };
    walk(z.toJSONSchema(DeclarationSchema, { target: 'draft-7' }));
    assert.ok(names.has('lsp') && names.has('extensionToLanguage') && names.has('trust'), 'the sections are in the schema');
    for (const name of names) assert.ok(doc.includes(`\`${name}\``) || doc.includes(`"${name}"`), name);
  });

});
