import * as path from 'node:path';
import * as vscode from 'vscode';
import { visibleLine } from '../../core/json/visibleText';
import type { SkillGateResult, SkillScanGate } from '../../core/skills/skillGate';
import type { SkillCandidate, SkillRootReport } from '../../core/skills/discovery';
import type { SkillTrustState } from '../../core/declaration/declarationModel';
import { workspaceSkills, type WorkspaceSkills } from '../../core/app/workspaceSkills';
import { journaled, readsUnchanged, type ReadJournal } from '../../core/node/readJournal';
import { fileFolders } from '../mcpFiles';
import { countOf } from '../../core/problems/plural';
import { COMMAND } from '../commandIds';
import type { Ctx } from '../ctx';
import type { ChangedConcerns } from '../../core/app/settingChanges';
import { diagnosticsByFile, type Check, type DiagnosticsOwner, type FileEvent } from '../diagnostics';
import { l10n } from '../l10nLookup';

/** Paths of the owner's watcher that concern skills: a project root's files, or a `.git` (which decides the project root). */
const PROJECT_ROOT_PATH = /\/\.git$|\/\.(dsh|agents)\/skills(\/|$)/;

/** A root as the review and the status show it (merged over folders; one entry per path). */
export interface RootView {
  root: SkillRootReport;
  trust: SkillTrustState;
  /** A project or custom root: DSH sessions load it only while trusted at this content. User roots are not gated. */
  gated: boolean;
  /** Folders whose DSH session loads this root. */
  folders: vscode.WorkspaceFolder[];
}

export interface SkillsSnapshot {
  text: string;
  tooltip: string;
  visible: boolean;
  /** Per folder: the skill names DSH sessions there are denied (the DSH plugin's gate), and what it offers instead. */
  dsh: Array<{ folder: string; withheld: Array<{ name: string; root: string; offeredFrom: string | null }> }>;
  roots: Array<{ path: string; kind: string; rank: number; trust: SkillTrustState; gated: boolean; pin: string | null; skills: Array<{ name: string; file: string; winner: boolean; modelInvocable: boolean; userInvocable: boolean; findings: string[]; scan: SkillScanGate | null; pin: string }>; dropped: string[] }>;
}

/**
 * The check of skill roots: discovery for every folder, its problems (published through the
 * diagnostics owner), the file watchers on the roots outside the workspace's own watchers, and
 * the status item that says when a trusted root changed.
 */
export class SkillRoots implements Check, vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('dsh-bridge.skills', vscode.StatusBarAlignment.Left, 10);
  readonly kind = 'skills';
  private readonly rediscovered = new vscode.EventEmitter<void>();
  /**
   * The roots were discovered again after a change under one of them (a SKILL.md edited, added or
   * removed): what a DSH session gets of the skills may differ, so the folders' plans are dropped.
   */
  readonly onDidRediscover = this.rediscovered.event;
  private readonly disposables: vscode.Disposable[] = [this.item, this.rediscovered];
  private readonly watchers = new Map<string, vscode.Disposable>();
  /** The folders discovered last (none in Restricted Mode) and their skill roots. */
  private discovered: { folders: readonly vscode.WorkspaceFolder[]; skills?: WorkspaceSkills } = { folders: [] };
  private generation = 0;
  private running: Promise<void> = Promise.resolve();
  /**
   * What the last discovery read (each root, listing, SKILL.md and trust record with its stamp),
   * checked again every {@link SkillRoots.READS_EVERY_MS}: a change no watcher reported (a root
   * removed before its watcher was up, a file written through a memory map, a root outside the
   * workspace on a file system without events) is discovered again all the same. The check
   * hashes every SKILL.md read (about 0.3 ms a file): the next waits at least
   * {@link SkillRoots.READS_IDLE_FACTOR} times as long as the last took, so that it never takes
   * more than a twentieth of the extension host (2,000 skills: a check of 0.56 s every 11 s).
   */
  private reads?: ReadJournal;
  static readonly READS_EVERY_MS = 2000;
  static readonly READS_IDLE_FACTOR = 20;
  private readsTimer?: NodeJS.Timeout;
  private disposed = false;

  constructor(
    private readonly owner: DiagnosticsOwner,
    private readonly ctx: Ctx,
    private readonly docsUri: (code: string) => vscode.Uri,
  ) {
    this.nextReadsCheck(SkillRoots.READS_EVERY_MS);
    this.item.name = l10n.t('DSH Skills');
    this.item.command = COMMAND.reviewSkillRoots;
  }

  private get log(): vscode.LogOutputChannel {
    return this.ctx.log;
  }

  wants(changed: ChangedConcerns): boolean {
    return changed.skillRoots;
  }

  fileChanged(uri: vscode.Uri, event: FileEvent): void {
    // Creation of a project root, or of the .git that decides the project root, inside the
    // workspace (the owner's watcher); a saved file of a root.
    if (event === 'disk' && PROJECT_ROOT_PATH.test(uri.path)) this.schedule();
    else if (event === 'save' && this.isSkillFile(uri)) this.schedule();
  }

  refreshAll(delay?: number): void {
    this.schedule(delay);
  }

  schedule(delay?: number): void {
    this.owner.schedule(this.kind, () => this.refreshNow(), (error) => this.log.error('discovering skill roots failed', error), delay);
  }

  /** Discovers every folder's roots now, serialized with any other refresh. */
  refreshNow(): Promise<void> {
    const next = this.running.then(() => this.refresh(), () => this.refresh());
    this.running = next.catch(() => undefined);
    return next;
  }

  private async refresh(): Promise<void> {
    const generation = ++this.generation;
    // Restricted Mode: the workspace's files (SKILL.md a repository committed, links, FIFOs) are
    // not read; discovery runs once the user trusts the workspace.
    if (!vscode.workspace.isTrusted) {
      this.reads = undefined;
      this.discovered = { folders: [] };
      this.owner.replace(this.kind, []);
      this.updateStatus();
      this.log.info('skill roots: not discovered in Restricted Mode (discovery reads workspace files); waiting for workspace trust');
      return;
    }
    const folders = fileFolders();
    const { value: skills, journal } = await journaled(() => workspaceSkills(this.ctx.ports(), folders.map((folder) => ({ cwd: folder.uri.fsPath, customRoots: this.ctx.config.folder(folder).customSkillRoots }))));
    if (skills.storeError !== undefined) this.log.error('reading the trusted skill roots from the DSH home failed; every root counts as untrusted', skills.storeError);
    if (generation !== this.generation) return;
    // A read that failed for a reason of the moment (out of descriptors, I/O) has no stamp to follow: discover again shortly.
    this.reads = journal.transient ? undefined : journal;
    if (journal.transient) this.schedule(SkillRoots.READS_EVERY_MS);
    this.discovered = { folders, skills };
    const problems = skills.folders.flatMap((f) => f.problems);
    this.owner.replace(this.kind, diagnosticsByFile(problems, (file) => vscode.Uri.file(file), this.docsUri).values());
    this.updateWatchers();
    this.updateStatus();
    // The first discovery follows activation: the plans read the skills themselves and need no drop.
    if (generation > 1) this.rediscovered.fire();
    const views = this.roots();
    this.log.info(`skill roots: ${views.map((v) => `${v.root.kind} ${v.root.path} (${v.trust}, ${countOf(v.root.candidates.length, 'file')})`).join('; ') || 'none'}; ${countOf(problems.length, 'problem')}`);
  }

  private nextReadsCheck(delay: number): void {
    if (this.disposed) return;
    this.readsTimer = setTimeout(() => void this.checkReads(), delay);
    this.readsTimer.unref?.();
  }

  private async checkReads(): Promise<void> {
    const reads = this.reads;
    const started = performance.now();
    try {
      if (!reads || await readsUnchanged(reads) || reads !== this.reads) return;
      this.reads = undefined; // one rediscovery per change; it notes what it reads anew
      this.log.info('skill roots: a file or folder the last discovery read has changed; discovering again');
      this.schedule();
    } finally {
      this.nextReadsCheck(Math.max(SkillRoots.READS_EVERY_MS, SkillRoots.READS_IDLE_FACTOR * (performance.now() - started)));
    }
  }

  /** What the scan does with a skill: withheld, accepted at its pin, or nothing (no error). */
  scanGate(candidate: SkillCandidate): SkillScanGate | undefined {
    return this.discovered.skills?.scanGate(candidate);
  }

  /** Every existing root, merged over folders, in DSH's order of the first folder that has it. */
  roots(): RootView[] {
    const { folders, skills } = this.discovered;
    return (skills?.roots ?? []).map((r) => ({ root: r.root, trust: r.trust, gated: r.gated, folders: r.folders.map((i) => folders[i]) }));
  }

  /** What DSH sessions get in the first folder that reads this root (none discovered: nothing). */
  sessionSkills(rootPath: string): Pick<SkillGateResult, 'roots' | 'scanned'> {
    const root = this.discovered.skills?.roots.find((r) => r.root.path === rootPath);
    return root ? this.discovered.skills!.folders[root.folders[0]].gate : { roots: [], scanned: [] };
  }

  recordedPin(rootPath: string): string | undefined {
    return this.discovered.skills?.roots.find((r) => r.root.path === rootPath)?.recordedPin;
  }

  private isSkillFile(uri: vscode.Uri): boolean {
    if (uri.scheme !== 'file') return false;
    return this.roots().some((v) => uri.fsPath.startsWith(v.root.path + path.sep));
  }

  /** A watcher per root (existing: everything under it; missing: its creation in the parent). */
  private updateWatchers(): void {
    const wanted = new Map<string, vscode.RelativePattern>();
    for (const { discovery } of this.discovered.skills?.folders ?? []) {
      for (const root of discovery.roots) {
        const pattern = root.exists
          ? new vscode.RelativePattern(vscode.Uri.file(root.path), '**')
          : new vscode.RelativePattern(vscode.Uri.file(path.dirname(root.path)), path.basename(root.path));
        wanted.set(`${pattern.baseUri.toString()}|${pattern.pattern}`, pattern);
      }
    }
    for (const [key, watcher] of this.watchers) {
      if (!wanted.has(key)) {
        watcher.dispose();
        this.watchers.delete(key);
      }
    }
    for (const [key, pattern] of wanted) {
      if (this.watchers.has(key)) continue;
      const watcher = vscode.workspace.createFileSystemWatcher(pattern);
      const subscriptions = [watcher.onDidCreate(() => this.schedule()), watcher.onDidChange(() => this.schedule()), watcher.onDidDelete(() => this.schedule())];
      this.watchers.set(key, { dispose: () => { for (const s of subscriptions) s.dispose(); watcher.dispose(); } });
    }
  }

  private updateStatus(): void {
    const views = this.roots().filter((v) => v.root.candidates.length > 0);
    if (views.length === 0) {
      this.item.hide();
      return;
    }
    // Only project and custom roots are gated in DSH: the user's own roots never count here.
    const changed = views.filter((v) => v.gated && v.trust === 'changed').length;
    const untrusted = views.filter((v) => v.gated && v.trust === 'untrusted').length;
    if (changed > 0) {
      this.item.text = `$(warning) ${l10n.t('DSH skills: {0} changed, review', changed)}`;
      this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    } else if (untrusted > 0) {
      this.item.text = `$(shield) ${l10n.t('DSH skills: {0} untrusted', untrusted)}`;
      this.item.backgroundColor = undefined;
    } else {
      this.item.text = `$(verified) ${l10n.t('DSH skills: trusted')}`;
      this.item.backgroundColor = undefined;
    }
    const files = (n: number) => (n === 1 ? l10n.t('1 skill file') : l10n.t('{0} skill files', n));
    const lines = views.map((v) => `- \`${v.root.path}\`: ${v.gated ? trustWord(v.trust) : l10n.t('your own, not gated')} (${files(v.root.candidates.length)})`);
    const withheld = this.withheldByFolder().filter((f) => f.withheld.length > 0)
      .map((f) => `- ${l10n.t('Withheld from DSH sessions in {0}: {1}', path.basename(f.folder), f.withheld.map((w) => w.name).join(', '))}`);
    // Paths and skill names come from the disk and SKILL.md files: each line shown escaped.
    const tooltip = new vscode.MarkdownString([l10n.t('Skill roots DSH loads (click to review):'), '', ...[...lines, ...(withheld.length ? ['', ...withheld] : [])].map(visibleLine)].join('\n'));
    tooltip.supportThemeIcons = false;
    this.item.tooltip = tooltip;
    this.item.show();
  }

  private withheldByFolder(): SkillsSnapshot['dsh'] {
    const { folders, skills } = this.discovered;
    return (skills?.folders ?? []).map(({ gate }, i) => ({
      folder: folders[i].uri.fsPath,
      withheld: gate.shadows.map((s) => ({ name: s.name, root: s.withheldRoot, offeredFrom: s.fallback?.root.path ?? null })),
    }));
  }

  /** What the status item shows and the roots behind it (for tests and the review command). */
  snapshot(): SkillsSnapshot {
    const tooltip = this.item.tooltip;
    return {
      text: this.item.text,
      tooltip: typeof tooltip === 'string' ? tooltip : tooltip?.value ?? '',
      visible: this.roots().some((v) => v.root.candidates.length > 0),
      dsh: this.withheldByFolder(),
      roots: this.roots().map((v) => ({
        path: v.root.path,
        kind: v.root.kind,
        rank: v.root.rank,
        trust: v.trust,
        gated: v.gated,
        pin: v.root.pin ?? null,
        skills: v.root.candidates.flatMap((c) => (c.analysis.skill
          ? [{ name: c.analysis.skill.name, file: c.file, winner: c.winner, ...c.analysis.skill.invocation, findings: c.scan.findings.map((f) => f.code), scan: this.scanGate(c) ?? null, pin: c.scan.pin }]
          : [])),
        dropped: v.root.candidates.filter((c) => !c.analysis.skill).map((c) => c.file),
      })),
    };
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.readsTimer);
    for (const w of this.watchers.values()) w.dispose();
    this.watchers.clear();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

export function trustWord(state: SkillTrustState): string {
  switch (state) {
    case 'trusted': return l10n.t('trusted');
    case 'changed': return l10n.t('changed since you trusted it');
    case 'untrusted': return l10n.t('not trusted');
  }
}
