// Writes schemas/declaration.schema.json from the zod model, so the schema cannot drift from the
// code. `--check` exits 1 when the committed file is not exactly what it would write.
import { readFileSync, writeFileSync } from 'node:fs';
import * as z from 'zod/mini';
import { DECLARATION_SCHEMA_ID, DeclarationSchema } from '../src/core/declaration/declarationModel';

const schema = z.toJSONSchema(DeclarationSchema, { target: 'draft-7' }) as Record<string, unknown>;
const out = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: DECLARATION_SCHEMA_ID,
  title: 'DSH Bridge declaration',
  description: 'Written by DSH Bridge into <folder>/.dsh/declaration.json; loaded by the DSH Bridge plugin. A plain string value is a literal (never scanned for variables); an array value is a template of literal strings, {"input": id} and {"env": NAME} references. See docs/declaration.md.',
  ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$schema')),
};
// Compact: it ships in the .vsix (every KiB counts against its budget), and an export writes its
// copy beside the declaration indented anyway.
const file = new URL('../schemas/declaration.schema.json', import.meta.url);
const text = `${JSON.stringify(out)}\n`;
if (process.argv.includes('--check')) {
  if (readFileSync(file, 'utf8') !== text) {
    console.error('schemas/declaration.schema.json is out of date: run npm run docs');
    process.exit(1);
  }
} else {
  writeFileSync(file, text);
}
