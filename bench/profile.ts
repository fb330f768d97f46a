/**
 * node --import tsx --cpu-prof bench/profile.ts [servers] [rounds]: a CPU profile of the
 * in-memory export, to see where the time goes (open the .cpuprofile in a profiler).
 */
import { analyzeSource } from '../src/core/mcp/analyze';
import { serializeDeclaration } from '../src/core/declaration/declaration';
import { buildDeclarationBody } from '../src/core/app/export';
import { generate } from './generate';

const count = Number(process.argv[2] ?? 500);
const rounds = Number(process.argv[3] ?? 200);
const bytes = Buffer.from(generate(count), 'utf8');
const opts = { folder: '/home/dev/app', folderName: 'app', userHome: '/home/dev', pathSeparator: '/', limits: { maxServers: Math.max(512, count) } };
for (let i = 0; i < rounds; i++) serializeDeclaration(buildDeclarationBody(analyzeSource(bytes, opts), opts.folder), Buffer.alloc(32));
