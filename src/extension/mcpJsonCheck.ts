import * as vscode from 'vscode';
import type { Analysis } from '../core/mcp/analysis';
import type { AnalyzeOptions } from '../core/mcp/analyzeOptions';
import { analyzeFolder, IGNORE_FILE } from '../core/app/folderSources';
import type { Ports } from '../core/app/ports';
import type { Problem } from '../core/problems/problems';
import type { ChangedConcerns } from '../core/app/settingChanges';
import { keepForDocument } from './decisions';
import { toDiagnostic, type Check, type DiagnosticsOwner, type FileEvent } from './diagnostics';
import { problemMessage } from './l10n';
import { fileFolders, folderOfDeclarationIgnore, folderOfMcpJson, mcpJsonUri, sourceOf, sourceUri } from './mcpFiles';
import { countOf } from '../core/problems/plural';

export interface FolderAnalysis {
  folder: vscode.WorkspaceFolder;
  analysis: Analysis;
  /** Analysed with the unsaved text of at least one open document rather than all from disk. */
  fromDocument: boolean;
}

/** Converts the core's problems of mcp.json to diagnostics (`open`: the editor shows its syntax errors itself). */
function toDiagnostics(problems: Problem[], folderUri: vscode.Uri, docsUri: (code: string) => vscode.Uri, open: boolean): vscode.Diagnostic[] {
  const uriOf = (file: string) => sourceUri(folderUri, file);
  // VS Code's JSON language already reports syntax errors of an open document; for a closed
  // file nothing else does, so there they are kept.
  return problems.filter((p) => keepForDocument(p.code, open)).map((p) => toDiagnostic(p, problemMessage(p), uriOf, docsUri));
}

/**
 * The check of every file VS Code runs a folder's MCP servers from (`.vscode/mcp.json`,
 * `.mcp.json`, the dev container file, the workspace file), and the cache of each folder's last
 * analysis: the status, the servers view and the quick fixes read it instead of analysing again.
 * A folder is analysed as a whole (its files shadow each other), each file from its unsaved
 * edits when there are any, else from disk; edits are debounced. Results are keyed by the
 * folder's `.vscode/mcp.json` URI.
 */
export class McpJsonCheck implements Check, vscode.Disposable {
  readonly kind = 'mcp.json';
  private readonly results = new Map<string, FolderAnalysis>();
  /** Diagnostics per file and per folder that produced them (a workspace file is shared by every folder). */
  private readonly published = new Map<string, { uri: vscode.Uri; byFolder: Map<string, vscode.Diagnostic[]> }>();
  /** Folder keys whose analysis runs now. */
  private readonly running = new Map<string, number>();
  private readonly changed = new vscode.EventEmitter<FolderAnalysis | vscode.WorkspaceFolder>();
  /** Fires after a folder was analysed (or its file disappeared). */
  readonly onDidAnalyze = this.changed.event;
  private generation = 0;
  /** The latest run started per file: an older run that finishes later must not win. */
  private readonly latest = new Map<string, number>();
  /** Milliseconds of the last update from a document's text: analysis to diagnostics set, debounce excluded. */
  private lastDocumentUpdateMs: number | undefined;

  constructor(
    private readonly owner: DiagnosticsOwner,
    private readonly options: (folder: vscode.WorkspaceFolder) => AnalyzeOptions,
    private readonly ports: () => Pick<Ports, 'files'>,
    private readonly docsUri: (code: string) => vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  wants(changed: ChangedConcerns): boolean {
    return changed.trustMode || changed.home || changed.export || changed.sources;
  }

  fileChanged(uri: vscode.Uri, event: FileEvent): void {
    switch (event) {
      case 'open':
      case 'close':
        return this.schedule(uri, 0);
      case 'edit':
        return this.schedule(uri);
      case 'disk': {
        // A change on disk: the file is read again unless an open document has unsaved edits.
        const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
        if (!doc?.isDirty) this.schedule(uri, 0);
        return;
      }
      case 'save':
        return; // the watcher sees the write
    }
  }

  /** Analyses every folder; called once after activation, off its synchronous path. */
  refreshAll(): void {
    const live = new Set(fileFolders().map((f) => mcpJsonUri(f).toString()));
    for (const folderKey of new Set([...this.published.values()].flatMap((f) => [...f.byFolder.keys()]))) {
      if (!live.has(folderKey)) this.publish(folderKey, new Map());
    }
    for (const key of [...this.results.keys()]) if (!live.has(key)) this.results.delete(key);
    for (const folder of fileFolders()) this.scheduleFolder(folder, 0);
  }

  /** How long the last update from an edited document took in this host (see the integration tier). */
  documentUpdateMs(): number | undefined {
    return this.lastDocumentUpdateMs;
  }

  /** The last analysis of a folder's MCP files (undefined: none yet, or no file). */
  get(folder: vscode.WorkspaceFolder): FolderAnalysis | undefined {
    return this.results.get(mcpJsonUri(folder).toString());
  }

  /** True when the folder's last analysis saw its files as they are now: no check waits or runs. */
  isCurrent(folder: vscode.WorkspaceFolder): boolean {
    const key = mcpJsonUri(folder).toString();
    return this.results.has(key) && !this.owner.isScheduled(this.taskKey(key)) && !this.running.get(key);
  }

  /** Analyses a folder now, when nothing is cached yet (a reader that cannot wait for the check). */
  async analyzeNow(folder: vscode.WorkspaceFolder): Promise<FolderAnalysis | undefined> {
    await this.run(mcpJsonUri(folder));
    return this.get(folder);
  }

  private taskKey(folderKey: string): string {
    return `${this.kind}:${folderKey}`;
  }

  /** Schedules the folders whose MCP servers this file defines, or whose `.dsh/.gitignore` it is. */
  private schedule(changed: vscode.Uri, delay?: number): void {
    const ignoreOf = folderOfDeclarationIgnore(changed);
    for (const folder of ignoreOf ? [ignoreOf] : sourceOf(changed)?.folders ?? []) this.scheduleFolder(folder, delay);
  }

  private scheduleFolder(folder: vscode.WorkspaceFolder, delay?: number): void {
    const uri = mcpJsonUri(folder);
    this.owner.schedule(this.taskKey(uri.toString()), () => this.run(uri), (error) => this.log.error(`analysing ${uri.fsPath} failed`, error), delay);
  }

  /**
   * Analyses the folder's files, each from its unsaved edits when there are any, else from disk:
   * a clean document can lag behind the disk (another component may hold an old model of the file).
   */
  private async run(uri: vscode.Uri): Promise<void> {
    const folder = folderOfMcpJson(uri);
    if (!folder) return;
    const key = uri.toString();
    const generation = ++this.generation;
    this.latest.set(key, generation);
    this.running.set(key, (this.running.get(key) ?? 0) + 1);
    try {
      await this.analyze(folder, key, generation);
    } finally {
      const left = (this.running.get(key) ?? 1) - 1;
      if (left > 0) this.running.set(key, left);
      else this.running.delete(key);
    }
  }

  private async analyze(folder: vscode.WorkspaceFolder, key: string, generation: number): Promise<void> {
    const started = performance.now();
    const unsaved = new Map<string, Uint8Array>();
    for (const d of vscode.workspace.textDocuments) {
      if (!d.isDirty || d.isClosed) continue;
      const source = sourceOf(d.uri);
      if (source?.folders.some((f) => f.uri.toString() === folder.uri.toString())) unsaved.set(source.spec.path, Buffer.from(d.getText(), 'utf8'));
      else if (folderOfDeclarationIgnore(d.uri)?.uri.toString() === folder.uri.toString()) unsaved.set(IGNORE_FILE, Buffer.from(d.getText(), 'utf8'));
    }
    const analysis = await analyzeFolder(this.ports(), this.options(folder), (p) => unsaved.get(p));
    if (this.latest.get(key) !== generation) return; // a newer run read the files again
    if (!analysis.usable && analysis.problems.some((p) => p.code === 'missing-source')) {
      this.publish(key, new Map());
      // Only a change is news: listeners that analyze on demand (the status item) would loop on "still none".
      if (this.results.delete(key)) this.changed.fire(folder);
      return;
    }
    const byFile = new Map<string, Analysis['problems']>();
    for (const p of analysis.problems) byFile.set(p.file, [...(byFile.get(p.file) ?? []), p]);
    const diagnostics = new Map<string, { uri: vscode.Uri; diagnostics: vscode.Diagnostic[] }>([[key, { uri: vscode.Uri.parse(key), diagnostics: [] }]]);
    for (const [file, problems] of byFile) {
      const fileUri = sourceUri(folder.uri, file);
      const open = vscode.workspace.textDocuments.some((d) => d.uri.toString() === fileUri.toString() && !d.isClosed);
      diagnostics.set(fileUri.toString(), { uri: fileUri, diagnostics: toDiagnostics(problems, folder.uri, this.docsUri, open) });
    }
    this.publish(key, diagnostics);
    if (unsaved.size) this.lastDocumentUpdateMs = performance.now() - started;
    const result = { folder, analysis, fromDocument: unsaved.size > 0 };
    this.results.set(key, result);
    this.log.debug(`analysed ${vscode.workspace.asRelativePath(folder.uri)}: ${analysis.servers.length} exportable, ${analysis.rejected.length} refused, ${countOf(analysis.problems.length, 'problem')}`);
    this.changed.fire(result);
  }

  /** Replaces what one folder shows in every file; a file's diagnostics are the union over the folders that read it. */
  private publish(folderKey: string, diagnostics: Map<string, { uri: vscode.Uri; diagnostics: vscode.Diagnostic[] }>): void {
    const touched = new Map<string, vscode.Uri>([...diagnostics].map(([file, d]) => [file, d.uri]));
    for (const [file, entry] of this.published) if (entry.byFolder.has(folderKey)) touched.set(file, entry.uri);
    for (const [file, uri] of touched) {
      const entry = this.published.get(file) ?? { uri, byFolder: new Map<string, vscode.Diagnostic[]>() };
      const mine = diagnostics.get(file)?.diagnostics;
      if (mine?.length) entry.byFolder.set(folderKey, mine);
      else entry.byFolder.delete(folderKey);
      const seen = new Set<string>();
      const union = [...entry.byFolder.values()].flat().filter((d) => {
        const id = JSON.stringify([d.range, d.message, d.code]);
        return !seen.has(id) && !!seen.add(id);
      });
      if (entry.byFolder.size) this.published.set(file, entry);
      else this.published.delete(file);
      this.owner.set(this.kind, uri, union);
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}
