// Writes the README's poisoning figures (between <!-- poisoning:start --> and <!-- poisoning:end -->)
// from the corpus and the real servers' tool lists (each server is started: test/oracle/servers,
// scripts/setup-oracles.sh). `--check` exits 1 when the README differs.
import { readFileSync, writeFileSync } from 'node:fs';
import { corpusFigures, figuresSection, poisonedCases, probeCleanServers, SECTION } from '../test/unit/core/scan/corpus.fixture';

async function main(): Promise<number> {
  const readme = new URL('../README.md', import.meta.url);
  const clean = await probeCleanServers();
  const section = figuresSection(corpusFigures(poisonedCases(), clean), clean);
  const current = readFileSync(readme, 'utf8');
  if (!SECTION.test(current)) {
    process.stderr.write('README.md has no <!-- poisoning:start --> ... <!-- poisoning:end --> section\n');
    return 1;
  }
  const next = current.replace(SECTION, `<!-- poisoning:start -->\n${section}\n<!-- poisoning:end -->`);
  if (next === current) return 0;
  if (process.argv.includes('--check')) {
    process.stderr.write('README.md: the poisoning figures are out of date; run npm run docs\n');
    return 1;
  }
  writeFileSync(readme, next);
  return 0;
}

main().then((code) => { process.exitCode = code; }, (error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
