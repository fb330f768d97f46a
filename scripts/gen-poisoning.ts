// Writes docs/poisoning.md's figures (between <!-- poisoning:start --> and <!-- poisoning:end -->)
// from the corpus and the real servers' tool lists (started: test/oracle/servers, scripts/setup-oracles.sh;
// captured: test/fixtures/poisoning/clean). `--check` exits 1 when the page differs.
import { readFileSync, writeFileSync } from 'node:fs';
import { cleanSide, cleanSkills, corpusFigures, figuresSection, poisonedCases, SECTION } from '../test/unit/core/scan/corpus.fixture';

async function main(): Promise<number> {
  const readme = new URL('../docs/poisoning.md', import.meta.url);
  const clean = await cleanSide();
  const section = figuresSection(corpusFigures(poisonedCases(), clean, cleanSkills()), clean);
  const current = readFileSync(readme, 'utf8');
  if (!SECTION.test(current)) {
    process.stderr.write('docs/poisoning.md has no <!-- poisoning:start --> ... <!-- poisoning:end --> section\n');
    return 1;
  }
  const next = current.replace(SECTION, `<!-- poisoning:start -->\n${section}\n<!-- poisoning:end -->`);
  if (next === current) return 0;
  if (process.argv.includes('--check')) {
    process.stderr.write('docs/poisoning.md: the poisoning figures are out of date; run npm run docs\n');
    return 1;
  }
  writeFileSync(readme, next);
  return 0;
}

main().then((code) => { process.exitCode = code; }, (error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
