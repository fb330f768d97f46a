import { strict as assert } from 'node:assert';
import { existsSync, lstatSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { analyzeSource } from '../../src/core/mcp/analyze';
import type { Analysis } from '../../src/core/mcp/analysis';
import type { AnalyzeOptions } from '../../src/core/mcp/analyzeOptions';
import type { QuickFix } from '../../src/core/mcp/quickFixes';
import { applyEdits } from 'jsonc-parser';
import { commitExport, reviewExport, type ExportCommit, type ExportResult } from '../../src/core/app/export';
import { nodePorts, type NodePorts } from '../../src/core/node/ports';
import { probeRowOnDemand } from '../../src/core/node/probe/probeOnDemand';
import type { MountState } from '../../src/dsh-plugin/mountDecision';
import { settingsViewFromFiles, type FolderIdentity, type SettingsView } from '../../src/core/settings/folderSettings';

/** A temporary folder that removes itself after the test that made it. */
export function tempDir(prefix = 'dsh-bridge-test-'): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const cleanup: Array<() => void> = [];
afterEach(() => {
  while (cleanup.length) cleanup.pop()!();
});

/** A workspace folder with `.vscode/mcp.json` (and any other files) written to disk. */
export function workspace(mcpJson: string | Buffer | undefined, files: Record<string, string> = {}): string {
  const dir = tempDir('dsh-bridge-ws-');
  if (mcpJson !== undefined) {
    mkdirSync(path.join(dir, '.vscode'), { recursive: true });
    writeFileSync(path.join(dir, '.vscode', 'mcp.json'), mcpJson);
  }
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

/** The text after a fix: its edits applied, as the editor applies a code action's edits. */
export function applyQuickFix(text: string, fix: Pick<QuickFix, 'edits'>): string {
  return applyEdits(text, fix.edits.map((e) => ({ ...e })));
}

export const FOLDER = '/home/dev/projects/app';

export function options(extra: Partial<AnalyzeOptions> = {}): AnalyzeOptions {
  return { folder: FOLDER, folderName: 'app', userHome: '/home/dev', pathSeparator: '/', ...extra };
}

export function analyze(text: string, extra: Partial<AnalyzeOptions> = {}): Analysis {
  return analyzeSource(Buffer.from(text, 'utf8'), options(extra));
}

export function codes(analysis: Analysis): string[] {
  return analysis.problems.map((p) => p.code);
}

/** The source text a problem's range covers (for single-line ranges). */
export function covered(text: string, range: { start: { line: number; character: number }; end: { line: number; character: number } }): string {
  const lines = text.split(/\r\n|\r|\n/);
  if (range.start.line !== range.end.line) return `${lines[range.start.line].slice(range.start.character)}...`;
  return lines[range.start.line].slice(range.start.character, range.end.character);
}

/**
 * The use cases' real ports around a DSH home, as a face builds them (nodePorts), with an empty
 * environment and the home given (default: the DSH home itself), so a test sees no variable or
 * skill of the machine it runs on. `extra` replaces a port (a PATH resolver, a probe).
 */
export function testPorts(dshHome: string, extra: Partial<NodePorts> & { home?: string; env?: Record<string, string | undefined> } = {}): NodePorts {
  const { home, env, ...replaced } = extra;
  return { ...nodePorts({ dshHome, env: env ?? {}, home: home ?? dshHome, log: () => undefined, probeRow: probeRowOnDemand }), ...replaced };
}

/** The export as a face without prompts runs it: review, then commit (what `dsh-bridge export` does). */
export async function exportFolder(ports: NodePorts, identity: FolderIdentity | string, commit: ExportCommit = {}): Promise<ExportResult> {
  const id = typeof identity === 'string' ? folderIdentityOf(identity) : identity;
  return commitExport(ports, await reviewExport(ports, id), commit);
}

/** A folder with the given settings (dotted keys), as the CLI reads them from one settings file. */
/** The settings view of a user settings.json holding these values (the CLI's path: settings files). */
export function userSettings(values: Readonly<Record<string, unknown>>): SettingsView {
  return settingsViewFromFiles([{ level: 'user', kind: 'settings', text: JSON.stringify(values) }]);
}

export function folderIdentityOf(folder: string, settings: Record<string, unknown> = {}, extra: Partial<FolderIdentity> = {}): FolderIdentity {
  return { folder, folderName: path.basename(folder), userHome: '/home/dev', settings: userSettings(settings), ...extra };
}

/** Ports for a use case that only reads a folder's files (no DSH home is touched). */
export const FILE_PORTS: Pick<NodePorts, 'files'> = { files: nodePorts({ dshHome: path.join(os.tmpdir(), 'dsh-bridge-no-home'), env: {} }).files };

/** Whether a process runs (Linux: not a zombie, which kill(pid, 0) still finds; elsewhere kill(pid, 0)). */
export function processRuns(pid: number): boolean {
  if (process.platform === 'linux') {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every file under `dir` (recursively, links not followed) whose bytes contain `text`. */
export function filesContaining(dir: string, text: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (entry.isFile() && readFileSync(file).includes(text)) found.push(file);
  }
  return found;
}

/**
 * `ascii` written in Unicode tag characters (U+E0000 plus each character's code): text a model
 * reads and an editor does not show. Tag text of a flag's body aside, the scan's hidden-tag-text.
 */
export function tagText(ascii: string): string {
  return [...ascii].map((c) => {
    const code = c.codePointAt(0)!;
    if (code > 0x7f) throw new Error(`tagText: ${JSON.stringify(c)} is not ASCII`);
    return String.fromCodePoint(0xe0000 + code);
  }).join('');
}

/** ASCII text hidden as zero-width characters, one per bit (U+200B for 0, U+200C for 1), as the scan decodes it. */
export function zeroWidthBits(ascii: string): string {
  return [...Buffer.from(ascii, 'latin1')].map((b) => b.toString(2).padStart(8, '0')).join('').replace(/0/g, '\u200b').replace(/1/g, '\u200c');
}

/**
 * The first character in `text` that a terminal or a dialog would act on instead of showing
 * (controls but line feed and tab, DEL, C1, bidi, zero-width, tags, lone surrogates), as
 * `U+XXXX`; undefined when there is none. Kept apart from the product's own classification.
 */
export function rawHidden(text: string): string | undefined {
  const m = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]|[\u{e0000}-\u{e007f}]|\p{Cs}/u.exec(text);
  return m ? `U+${m[0].codePointAt(0)!.toString(16).padStart(4, '0')} at ${m.index} in ${JSON.stringify(text.slice(Math.max(0, m.index - 40), m.index + 40))}` : undefined;
}

/** The id of a process that has exited (its temp files are abandoned). */
export function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

/** Every file below `dir` (relative paths), none when it does not exist. */
export function allFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => !lstatSync(path.join(dir, f)).isDirectory());
}

/** What a DSH session remembers before its first step (a new Session of the plugin holds the same). */
export function freshSession(): MountState {
  return { mounts: new Map(), starting: new Map(), rejected: new Set(), allowed: new Set(), failed: new Map(), unanswered: new Map() };
}

const REPO = path.resolve(__dirname, '../..');

/** Runs the built CLI (dist/cli.js) with DSH_HOME set, from the repository: its exit code, output, and output as JSON. */
export function runCli(args: string[], home: string) {
  const r = spawnSync(process.execPath, [path.join(REPO, 'dist/cli.js'), ...args], { env: { ...process.env, DSH_HOME: home }, encoding: 'utf8', cwd: REPO });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) };
}

/**
 * Edits a file in place with the same size and its times set back (a check by size and mtime, or
 * by inode, would miss it). Returns what puts the old text back the same way.
 */
export function editInPlace(file: string, edit: (text: string) => string): () => void {
  const before = statSync(file);
  const text = readFileSync(file, 'utf8');
  const edited = edit(text);
  assert.notEqual(edited, text);
  assert.equal(Buffer.byteLength(edited), before.size);
  writeFileSync(file, edited);
  utimesSync(file, before.atimeMs / 1000, before.mtimeMs / 1000);
  assert.equal(Math.floor(statSync(file).mtimeMs), Math.floor(before.mtimeMs)); // the same millisecond
  return () => {
    writeFileSync(file, text);
    utimesSync(file, before.atimeMs / 1000, before.mtimeMs / 1000);
  };
}

/**
 * A timing bound that holds on a busy machine: `measure` is tried up to `attempts` times and the
 * first result `within` accepts ends it; the last result is returned for the assertion's message.
 * Load only slows a run, so a slower algorithm (quadratic where linear was meant) fails every
 * attempt, while a machine busy with other work fails only some.
 */
export function timedWithin<T>(measure: () => T, within: (result: T) => boolean, attempts = 4): { ok: boolean; result: T } {
  let result = measure();
  for (let i = 1; i < attempts && !within(result); i++) result = measure();
  return { ok: within(result), result };
}
