// Test-only oracle: runs DSH's own skill discovery (@deepseek-ai/dsh-skill + dsh-skill-filesystem
// 0.1.0-rc.8) on JSON cases read from stdin, prints JSON results. Per case:
//   candidates: what FileSystemSkillProvider.list({cwd}) keeps, in DSH's order (before collisions)
//   winners:    ctx.skills.snapshot({cwd}).skills, the skills DSH actually loads
//   ignored:    files DSH logged as ignored (dropped), with its reason
// Run by test/unit/skills.oracle.test.ts; installed by scripts/setup-oracles.sh.
import { Context } from '@deepseek-ai/cordis';
import SkillRegistry from '@deepseek-ai/dsh-skill';
import * as SkillFilesystem from '@deepseek-ai/dsh-skill-filesystem';

delete process.env.DSH_BUNDLED_SKILL_DIR;

async function discover(c) {
  const root = new Context();
  const logs = [];
  // Without an exporter, DSH's reasons for dropping a skill are silent.
  root.logger.exporter({ levels: { default: 3 }, export: (m) => logs.push({ type: m.type, text: m.args.map(String).join(' ') }) });
  await root.plugin(SkillRegistry);
  const config = { dshHome: c.dshHome, agentsHome: c.agentsHome, customSkillDirs: c.customSkillDirs ?? [], watch: false };
  await root.plugin(SkillFilesystem, config);

  const provider = new SkillFilesystem.FileSystemSkillProvider(root, { signal: new AbortController().signal, invalidate() {} }, config);
  const listed = await provider.list({ cwd: c.cwd });
  const candidates = (Array.isArray(listed) ? listed : listed.candidates).map((s) => ({
    name: s.name, description: s.description, whenToUse: s.whenToUse, invocation: s.invocation,
    metadata: s.metadata, source: s.source, rank: s.rank, path: s.path,
  }));
  await provider.dispose();

  const logStart = logs.length;
  const snapshot = await root.skills.snapshot({ cwd: c.cwd });
  const winners = snapshot.skills.map((s) => ({ name: s.name, source: s.source, directory: s.resourceBase?.path, invocation: s.invocation }));
  const ignored = [];
  for (const { text } of logs.slice(logStart)) {
    const m = /^skill file (.*) ignored: (.*)$/s.exec(text);
    if (m) ignored.push({ path: m[1], reason: m[2] });
  }
  return { candidates, winners, complete: snapshot.complete, ignored, logs: logs.map((l) => `${l.type}: ${l.text}`) };
}

let input = '';
for await (const chunk of process.stdin) input += chunk;
const results = [];
for (const c of JSON.parse(input)) results.push(await discover(c));
process.stdout.write(JSON.stringify(results));
process.exit(0);
