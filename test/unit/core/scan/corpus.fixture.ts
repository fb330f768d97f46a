/**
 * The poisoning corpus (test/fixtures/poisoning/poisoned.json) and its clean side: the real tool
 * lists and instructions of MCP servers from npm, obtained by starting each one (a real process)
 * through the probe's MCP client. Shared by test/unit/core/scan/scan.corpus.test.ts and
 * scripts/gen-poisoning.ts, which writes the README's figures from them.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { probeRow } from '../../../../src/core/node/probe/probeClient';
import type { McpClientConfig } from '../../../../src/core/mcp/dshRow';
import { scanInstructions, scanTool, type ScanFinding, type ScannedTool } from '../../../../src/core/scan/scan';
import { SCAN_CODES, type ScanCode } from '../../../../src/core/scan/scanCodes';
import { scanSkillFile } from '../../../../src/core/skills/skillScan';
import { scanServers, type ScannedServer } from '../../../../src/core/tools/toolScan';

const ROOT = path.resolve(__dirname, '../../../..');
const SERVERS = path.join(ROOT, 'test/oracle/servers/node_modules/@modelcontextprotocol');

export interface PoisonCase {
  id: string;
  /** The attack class (docs/poisoning.md reports per class); without one, the class of its first expected code. */
  class?: string;
  source: string;
  expect: ScanCode[];
  serverName?: string;
  otherTools?: Array<{ serverName: string; tool: string }>;
  tool?: ScannedTool;
  instructions?: string;
  skill?: string;
  padTo?: number;
  nestTo?: number;
}

const PAD = ' Lorem ipsum dolor sit amet.';

/** The poisoned cases, with `padTo` and `nestTo` applied. */
export function poisonedCases(): PoisonCase[] {
  const { cases } = JSON.parse(readFileSync(path.join(ROOT, 'test/fixtures/poisoning/poisoned.json'), 'utf8')) as { cases: PoisonCase[] };
  return cases.map((c) => {
    if (!c.tool) return c;
    const tool = { ...c.tool };
    if (c.padTo) tool.description = (tool.description ?? '') + PAD.repeat(Math.ceil(c.padTo / PAD.length));
    if (c.nestTo) {
      let schema: unknown = { type: 'string' };
      for (let i = 0; i < c.nestTo; i++) schema = { type: 'object', properties: { [`level${i}`]: schema } };
      tool.inputSchema = schema;
    }
    return { ...c, tool };
  });
}

/** One case's findings, as the probe, the view and the DSH plugin scan it. */
export function scanCase(c: PoisonCase): ScanFinding[] {
  const context = { serverName: c.serverName, ownTools: c.tool ? [c.tool.name] : [], otherTools: c.otherTools ?? [] };
  if (c.tool) return scanTool(c.tool, context);
  if (c.instructions !== undefined) return scanInstructions(c.instructions, context);
  return scanSkillFile(c.skill ?? '');
}

/** The clean servers: each one's package, how it starts, and the values it needs to list its tools (none is used: nothing is called). */
export const CLEAN_SERVERS: ReadonlyArray<{ serverName: string; pkg: string; args: (dir: string) => string[]; env?: Record<string, string> }> = [
  { serverName: 'everything', pkg: path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything'), args: () => ['stdio'] },
  { serverName: 'filesystem', pkg: path.join(SERVERS, 'server-filesystem'), args: (dir) => [dir] },
  { serverName: 'memory', pkg: path.join(SERVERS, 'server-memory'), args: () => [], env: { MEMORY_FILE_PATH: 'memory.json' } },
  { serverName: 'sequential-thinking', pkg: path.join(SERVERS, 'server-sequential-thinking'), args: () => [] },
  { serverName: 'github', pkg: path.join(SERVERS, 'server-github'), args: () => [], env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'unused' } },
  { serverName: 'gitlab', pkg: path.join(SERVERS, 'server-gitlab'), args: () => [], env: { GITLAB_PERSONAL_ACCESS_TOKEN: 'unused' } },
  { serverName: 'slack', pkg: path.join(SERVERS, 'server-slack'), args: () => [], env: { SLACK_BOT_TOKEN: 'unused', SLACK_TEAM_ID: 'unused' } },
  { serverName: 'brave-search', pkg: path.join(SERVERS, 'server-brave-search'), args: () => [], env: { BRAVE_API_KEY: 'unused' } },
  { serverName: 'google-maps', pkg: path.join(SERVERS, 'server-google-maps'), args: () => [], env: { GOOGLE_MAPS_API_KEY: 'unused' } },
  { serverName: 'postgres', pkg: path.join(SERVERS, 'server-postgres'), args: () => ['postgresql://127.0.0.1:1/unused'] },
];

/** The class of a case without one: by the first code it expects. */
const CLASS_OF_CODE: Partial<Record<ScanCode, string>> = {
  'hidden-tag-text': 'hidden-text', 'hidden-variation-selectors': 'hidden-text', 'hidden-invisible-run': 'hidden-text', 'bidi-override': 'hidden-text',
  'ansi-escape': 'hidden-text', 'hidden-characters': 'hidden-text', 'hidden-characters-in-name': 'hidden-text', 'instruction-override': 'override', 'secrecy-request': 'secrecy-deception',
  'role-tag': 'model-directed', 'instruction-tag': 'model-directed', 'precondition-instruction': 'model-directed', 'addressed-to-model': 'model-directed',
  'other-server-tool': 'steering', 'tool-hook': 'steering', 'read-sensitive-file': 'credential-files', 'sensitive-file': 'credential-files',
  'home-path': 'credential-files', 'exfiltration': 'exfiltration-channel', 'large-definition': 'size', 'oversized-definition': 'size', 'deep-schema': 'size',
};

export function classOf(c: PoisonCase): string {
  return c.class ?? CLASS_OF_CODE[c.expect[0]] ?? c.expect[0];
}

/** A clean tool list captured from a real server (scripts/capture-clean-tools.ts): where it came from, and what it listed. */
export interface CapturedServer {
  serverName: string;
  package: string;
  version: string;
  capturedAt: string;
  how: string;
  /** As listed (title, outputSchema and annotations kept: the scan reads them too). */
  tools: Array<ScannedTool & { description: string; inputSchema: unknown }>;
  instructions?: string;
}

const CAPTURED = path.join(ROOT, 'test/fixtures/poisoning/clean');

/** The captured clean servers (test/fixtures/poisoning/clean/*.json), by file name. */
export function capturedServers(): CapturedServer[] {
  if (!existsSync(CAPTURED)) return [];
  return readdirSync(CAPTURED).filter((f) => f.endsWith('.json')).sort().map((f) => JSON.parse(readFileSync(path.join(CAPTURED, f), 'utf8')) as CapturedServer);
}

/**
 * The SKILL.md files published in the clean servers' packages and their dependencies (test/oracle/
 * clean-servers, installed by setup-oracles.sh): real skills, the clean side of the skill scan. One
 * of each content, by its path under node_modules.
 */
export function cleanSkills(): Array<{ where: string; text: string }> {
  const root = path.join(ROOT, 'test/oracle/clean-servers/node_modules');
  // Without them the figures would read "0 of 0": a missing oracle is an error, not a clean result.
  if (!existsSync(root)) throw new Error('the clean servers\' packages are not installed (test/oracle/clean-servers): run `bash scripts/setup-test-deps.sh` (npm test\'s pretest) first');
  const found = new Map<string, string>();
  const walk = (dir: string, depth: number): void => {
    if (depth > 12 || !existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const at = path.join(dir, entry.name);
      if (entry.isDirectory() && !entry.isSymbolicLink()) walk(at, depth + 1);
      else if (entry.name === 'SKILL.md') {
        const text = readFileSync(at, 'utf8');
        if (![...found.values()].includes(text)) found.set(path.relative(root, at), text);
      }
    }
  };
  walk(root, 0);
  return [...found].sort(([a], [b]) => a.localeCompare(b)).map(([where, text]) => ({ where, text }));
}

/** The version of a clean server's package, as installed. */
export function packageVersion(pkg: string): string {
  return (JSON.parse(readFileSync(path.join(pkg, 'package.json'), 'utf8')) as { name: string; version: string }).version;
}

/**
 * Starts every clean server (a real process, through the probe's MCP client), lists its tools and
 * instructions, and stops it. Throws when one does not answer: the clean side must be whole.
 */
export async function probeCleanServers(): Promise<Array<ScannedServer & { pkg: string }>> {
  const missing = CLEAN_SERVERS.filter((s) => !existsSync(path.join(s.pkg, 'package.json'))).map((s) => path.relative(ROOT, s.pkg));
  // npm test's pretest installs them (test/oracle/servers); a bare mocha run has not.
  if (missing.length) throw new Error(`the clean servers are not installed (${missing.join(', ')}): run \`bash scripts/setup-test-deps.sh\` (npm test's pretest) first`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-bridge-clean-'));
  try {
    const out: Array<ScannedServer & { pkg: string }> = [];
    // Two at a time: the machine is shared.
    for (let i = 0; i < CLEAN_SERVERS.length; i += 2) {
      const batch = CLEAN_SERVERS.slice(i, i + 2).map(async (s) => {
        const main = path.join(s.pkg, 'dist/index.js');
        const row = {
          serverName: s.serverName, transport: 'stdio', command: process.execPath, args: [main, ...s.args(dir)], env: { ...(s.env ?? {}) }, cwd: dir,
          toolCallTimeoutMs: 60000, failOnStartupError: false, reconnect: { enabled: false, initialDelayMs: 500, maxDelayMs: 30000, maxAttempts: 1 },
        } as McpClientConfig;
        const result = await probeRow(row, { timeoutMs: 60000, parentEnv: { PATH: process.env.PATH, HOME: dir } });
        if (!result.ok) throw new Error(`${s.serverName} did not answer: ${result.failure} ${result.detail} ${result.stderr}`);
        return { serverName: s.serverName, pkg: s.pkg, tools: result.tools, ...(result.instructions !== undefined ? { instructions: result.instructions } : {}) };
      });
      out.push(...await Promise.all(batch));
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface RuleFigures {
  code: ScanCode;
  severity: string;
  /** Poisoned cases that expect this rule. */
  expected: number;
  /** Of those, the ones it found. */
  detected: number;
  /** Poisoned cases where it fired besides the ones that expect it. */
  alsoOn: number;
  /** Clean definitions (tools and instructions) it fired on. */
  falsePositives: number;
}

export interface ClassFigures {
  name: string;
  /** Poisoned tools and skills of this class (instructions are shown, never withheld: counted apart). */
  cases: number;
  /** With any finding. */
  flagged: number;
  /** Of them, the ones whose intended rules include an error (warning-only cases are offered by design). */
  errorCases: number;
  /** Of those, with an error: withheld from DSH until accepted. */
  withheld: number;
}

export interface CorpusFigures {
  rules: RuleFigures[];
  classes: ClassFigures[];
  /** Clean definitions with an error (would be withheld). */
  cleanWithheld: number;
  /** Published SKILL.md files: how many, with any finding, with an error. */
  skills: { count: number; flagged: number; withheld: number; findings: string[] };
  cases: number;
  /** Poisoned cases with every expected rule found. */
  caught: number;
  /** Poisoned tools and skills (the cases that are not server instructions), and of them with any finding. */
  definitions: number;
  flagged: number;
  /** Poisoned tools and skills with an error (withheld in DSH until accepted; instructions are only shown). */
  withheld: number;
  /** Poisoned server instructions with an error: shown, never withheld (DSH rc.8 does not give them to the model). */
  instructionsFlagged: number;
  cleanServers: number;
  cleanTools: number;
  cleanInstructions: number;
  /** Clean definitions with any finding. */
  cleanFlagged: number;
  /** Every finding on the clean side (what a false positive looks like, for the test's message). */
  cleanFindings: Array<{ server: string; tool?: string; finding: ScanFinding }>;
}

export function corpusFigures(cases: readonly PoisonCase[], clean: readonly ScannedServer[], skills: ReadonlyArray<{ where: string; text: string }> = []): CorpusFigures {
  const skillScans = skills.map((s) => ({ where: s.where, findings: scanSkillFile(s.text) }));
  const found = cases.map((c) => new Set(scanCase(c).map((f) => f.code)));
  const all = found.map((codes, i) => ({ codes, findings: scanCase(cases[i]) }));
  const scans = scanServers(clean);
  const cleanFindings: CorpusFigures['cleanFindings'] = [];
  for (const server of clean) {
    const scan = scans.get(server.serverName)!;
    for (const [tool, findings] of scan.tools) for (const finding of findings) cleanFindings.push({ server: server.serverName, tool, finding });
    for (const finding of scan.instructions) cleanFindings.push({ server: server.serverName, finding });
  }
  const rules = (Object.keys(SCAN_CODES) as ScanCode[]).map((code): RuleFigures => {
    const expecting = cases.map((c, i) => i).filter((i) => cases[i].expect.includes(code));
    const definitions = new Set(cleanFindings.filter((f) => f.finding.code === code).map((f) => `${f.server} ${f.tool ?? ''}`));
    return {
      code,
      severity: SCAN_CODES[code][0],
      expected: expecting.length,
      detected: expecting.filter((i) => found[i].has(code)).length,
      alsoOn: cases.map((c, i) => i).filter((i) => !cases[i].expect.includes(code) && found[i].has(code)).length,
      falsePositives: definitions.size,
    };
  });
  const classes = [...new Set(cases.map(classOf))].map((name): ClassFigures => {
    const of = cases.map((c, i) => i).filter((i) => classOf(cases[i]) === name && cases[i].instructions === undefined);
    const errorCases = of.filter((i) => cases[i].expect.some((code) => SCAN_CODES[code][0] === 'error'));
    return { name, cases: of.length, flagged: of.filter((i) => all[i].findings.length > 0).length, errorCases: errorCases.length, withheld: errorCases.filter((i) => all[i].findings.some((f) => f.severity === 'error')).length };
  }).filter((c) => c.cases > 0);
  return {
    rules,
    classes,
    skills: {
      count: skills.length,
      flagged: skillScans.filter((s) => s.findings.length).length,
      withheld: skillScans.filter((s) => s.findings.some((f) => f.severity === 'error')).length,
      findings: skillScans.flatMap((s) => s.findings.map((f) => `${s.where}: ${f.code} ${f.excerpt}`)),
    },
    cleanWithheld: new Set(cleanFindings.filter((f) => f.finding.severity === 'error').map((f) => `${f.server} ${f.tool ?? ''}`)).size,
    cases: cases.length,
    caught: cases.filter((c, i) => c.expect.every((code) => found[i].has(code))).length,
    definitions: cases.filter((c) => c.instructions === undefined).length,
    flagged: all.filter((a, i) => cases[i].instructions === undefined && a.findings.length > 0).length,
    withheld: all.filter((a, i) => cases[i].instructions === undefined && a.findings.some((f) => f.severity === 'error')).length,
    instructionsFlagged: all.filter((a, i) => cases[i].instructions !== undefined && a.findings.some((f) => f.severity === 'error')).length,
    cleanServers: clean.length,
    cleanTools: clean.reduce((n, s) => n + s.tools.length, 0),
    cleanInstructions: clean.filter((s) => s.instructions !== undefined).length,
    cleanFlagged: new Set(cleanFindings.map((f) => `${f.server} ${f.tool ?? ''}`)).size,
    cleanFindings,
  };
}

/** Every clean server: the ones the test starts (a real process each) and the captured lists, with their package and version. */
export async function cleanSide(): Promise<Array<ScannedServer & { label: string }>> {
  const live = (await probeCleanServers()).map((s) => ({ ...s, label: `\`${path.basename(s.pkg)}\` ${packageVersion(s.pkg)}` }));
  const captured = capturedServers().map((c) => ({ serverName: c.serverName, tools: c.tools, ...(c.instructions !== undefined ? { instructions: c.instructions } : {}), label: `\`${c.package}\` ${c.version}` }));
  return [...live, ...captured];
}

const percent = (n: number, of: number) => (of === 0 ? '-' : `${((100 * n) / of).toFixed(n === of || n === 0 ? 0 : 1)}%`);

/** docs/poisoning.md's figures (between `<!-- poisoning:start -->` and `<!-- poisoning:end -->`). */
export function figuresSection(figures: CorpusFigures, servers: ReadonlyArray<{ label: string }>): string {
  const captured = capturedServers().length;
  const cleanDefinitions = figures.cleanTools + figures.cleanInstructions;
  const lines = [
    `The scan's rules, run on the corpus of \`test/fixtures/poisoning/poisoned.json\` (${figures.cases} poisoned tool definitions, server instructions and`,
    `SKILL.md texts, each rewritten after a public write-up or an attack run) and on the real tool lists and instructions of ${figures.cleanServers} MCP servers from npm:`,
    `${figures.cleanServers - captured} started by the test, ${captured} captured by starting them once (\`scripts/capture-clean-tools.ts\`, kept in \`test/fixtures/poisoning/clean/\` with their package and version):`,
    `${servers.map((s) => s.label).join(', ')}; ${figures.cleanTools} tools, ${figures.cleanInstructions} instructions.`,
    'Generated by `npm run docs`; `test/unit/core/scan/scan.corpus.test.ts` fails when it differs from the code.',
    '',
    '| attack class | poisoned tools and skills | flagged | of them meant to be withheld (an error rule) | withheld |',
    '|---|---:|---:|---:|---:|',
    ...figures.classes.map((c) => `| ${c.name} | ${c.cases} | ${c.flagged} (${percent(c.flagged, c.cases)}) | ${c.errorCases} | ${c.withheld} (${percent(c.withheld, c.errorCases)}) |`),
    '',
    `All poisoned tools and skills: **${figures.flagged} of ${figures.definitions}** flagged (${percent(figures.flagged, figures.definitions)}), **${figures.withheld} of ${figures.definitions}** withheld (${percent(figures.withheld, figures.definitions)}); the rest carry only a warning rule (a home path, a credential file named, an order to the model, a long text: real servers write those too).`,
    `Clean definitions (tools and instructions) with any finding: **${figures.cleanFlagged} of ${cleanDefinitions}** (${percent(figures.cleanFlagged, cleanDefinitions)}); with an error, that is withheld: **${figures.cleanWithheld}** (${percent(figures.cleanWithheld, cleanDefinitions)}).`,
    `Published SKILL.md files in those packages and their dependencies (one of each content): **${figures.skills.flagged} of ${figures.skills.count}** with any finding, ${figures.skills.withheld} withheld; the poisoned skills are in the classes above.`,
    `Poisoned cases with every intended rule found: **${figures.caught} of ${figures.cases}**; server instructions with an error (shown, never withheld): ${figures.instructionsFlagged}.`,
    '',
    '| rule | severity | poisoned cases for it | detected | also fires on other poisoned cases | false positives on the clean servers |',
    '|---|---|---:|---:|---:|---:|',
    ...figures.rules.map((r) => `| \`${r.code}\` | ${r.severity} | ${r.expected} | ${r.detected} | ${r.alsoOn} | ${r.falsePositives} |`),
    '',
    'The phrase rules read English; the corpus is written with the rules in view, so these figures say that each rule does what it is',
    'for and stays quiet on real servers, not how much of the poisoning in the wild it would catch.',
  ];
  return lines.join('\n');
}

export const SECTION = /<!-- poisoning:start -->\n([\s\S]*?)\n<!-- poisoning:end -->/;
