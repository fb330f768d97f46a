// node --max-semi-space-size=1024 out/alloc.js: bytes allocated by one export and by one parse.
import { parse } from 'jsonc-parser';
import { analyzeSource } from '../src/core/mcp/analyze';
import { serializeDeclaration } from '../src/core/declaration/declaration';
import { buildDeclarationBody } from '../src/core/app/export';
import { parseJsonc } from '../src/core/json/jsonTree';
import { generate } from './generate';
const text = generate(500);
const bytes = Buffer.from(text);
const opts = { folder: '/home/dev/app', folderName: 'app', userHome: '/home/dev', pathSeparator: '/' };
const measure = (label: string, fn: () => unknown) => {
  for (let i = 0; i < 5; i++) fn();
  const before = process.memoryUsage().heapUsed;
  fn();
  console.log(label, ((process.memoryUsage().heapUsed - before) / 1e6).toFixed(2), 'MB');
};
measure('parse', () => parse(text));
measure('parseTree', () => parseJsonc(text));
measure('analysis', () => analyzeSource(bytes, opts));
const a = analyzeSource(bytes, opts);
measure('declaration', () => serializeDeclaration(buildDeclarationBody(a, '/w'), Buffer.alloc(32)));
