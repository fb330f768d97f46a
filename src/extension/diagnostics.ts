import * as vscode from 'vscode';
import { type Analysis } from '../core/mcp/analyze';
import { analyzeFolder } from '../core/node/declarationFiles';
import type { Problem, Severity } from '../core/problems/problems';
import { problemMessage } from './l10n';
import { keepForDocument } from './decisions';
import { fileFolders, folderOfMcpJson, MCP_SOURCES_GLOB, mcpJsonUri, sourceOf, sourceUri } from './mcpFiles';
import type { AnalyzeOptions } from '../core/mcp/analyze';

export const DIAGNOSTIC_SOURCE = 'dsh-bridge';
const DEBOUNCE_MS = 300;

const SEVERITY: Record<Severity, vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};


export interface FolderAnalysis {
  folder: vscode.WorkspaceFolder;
  analysis: Analysis;
  /** Analysed from an open document's text (possibly unsaved) rather than from disk. */
  fromDocument: boolean;
}

function toRange(r: Problem['range']): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}

/** Converts the core's problems to diagnostics; pure apart from constructing vscode values. */
export function toDiagnostics(problems: Problem[], folderUri: vscode.Uri, docsUri: (code: string) => vscode.Uri, open: boolean): vscode.Diagnostic[] {
  const out: vscode.Diagnostic[] = [];
  for (const p of problems) {
    // VS Code's JSON language already reports syntax errors of an open document; for a closed
    // file nothing else does, so there they are kept.
    if (!keepForDocument(p.code, open)) continue;
    const d = new vscode.Diagnostic(toRange(p.range), problemMessage(p), SEVERITY[p.severity]);
    d.source = DIAGNOSTIC_SOURCE;
    d.code = { value: p.code, target: docsUri(p.code) };
    if (p.related?.length) {
      d.relatedInformation = p.related.map((r) => new vscode.DiagnosticRelatedInformation(
        new vscode.Location(sourceUri(folderUri, r.file), toRange(r.range)), r.message));
    }
    if (p.code === 'dev-ignored') d.tags = [vscode.DiagnosticTag.Unnecessary];
    out.push(d);
  }
  return out;
}

/**
 * Owns THE diagnostic collection for every file VS Code runs a folder's MCP servers from
 * (`.vscode/mcp.json`, `.mcp.json`, the dev container file, the workspace file), with what keeps
 * it current: the open/change/close listeners (changes debounced), a file watcher for files
 * that are not open, and the workspace-folder listener. A folder is analysed as a whole (its
 * files shadow each other); results are keyed by the folder's `.vscode/mcp.json` URI.
 */
export class McpDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection(DIAGNOSTIC_SOURCE);
  private readonly disposables: vscode.Disposable[] = [];
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly results = new Map<string, FolderAnalysis>();
  private readonly changed = new vscode.EventEmitter<FolderAnalysis | vscode.WorkspaceFolder>();
  /** Fires after a folder was analysed (or its file disappeared). */
  readonly onDidAnalyze = this.changed.event;
  private generation = 0;
  /** The latest run started per file: an older run that finishes later must not win. */
  private readonly latest = new Map<string, number>();
  /** Milliseconds of the last update from a document's text: analysis to diagnostics set, debounce excluded. */
  private lastDocumentUpdateMs: number | undefined;
  /** Diagnostics per file and per folder that produced them (a workspace file is shared by every folder). */
  private readonly published = new Map<string, Map<string, vscode.Diagnostic[]>>();

  constructor(
    private readonly options: (folder: vscode.WorkspaceFolder) => AnalyzeOptions,
    private readonly docsUri: (code: string) => vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
  ) {
    const watcher = vscode.workspace.createFileSystemWatcher(MCP_SOURCES_GLOB);
    this.disposables.push(
      this.collection,
      this.changed,
      watcher,
      watcher.onDidCreate((uri) => this.onDisk(uri)),
      watcher.onDidChange((uri) => this.onDisk(uri)),
      watcher.onDidDelete((uri) => this.onDisk(uri)),
      vscode.workspace.onDidOpenTextDocument((doc) => this.schedule(doc.uri, 0)),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length) this.schedule(e.document.uri, DEBOUNCE_MS);
      }),
      // A closed document's unsaved edits are gone: the file on disk counts again.
      vscode.workspace.onDidCloseTextDocument((doc) => this.schedule(doc.uri, 0)),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.refreshAll()),
    );
  }

  /** Analyses every folder; called once after activation, off its synchronous path. */
  refreshAll(): void {
    const live = new Set(fileFolders().map((f) => mcpJsonUri(f).toString()));
    for (const folderKey of new Set([...this.published.values()].flatMap((m) => [...m.keys()]))) {
      if (!live.has(folderKey)) this.publish(folderKey, new Map());
    }
    for (const key of [...this.results.keys()]) if (!live.has(key)) this.results.delete(key);
    for (const folder of fileFolders()) this.schedule(mcpJsonUri(folder), 0);
  }

  /** How long the last update from an edited document took in this host (see the integration tier). */
  documentUpdateMs(): number | undefined {
    return this.lastDocumentUpdateMs;
  }

  get(folder: vscode.WorkspaceFolder): FolderAnalysis | undefined {
    return this.results.get(mcpJsonUri(folder).toString());
  }

  /** Analyses a folder now and returns the result (used by the status item and tests). */
  async analyzeNow(folder: vscode.WorkspaceFolder): Promise<FolderAnalysis | undefined> {
    await this.run(mcpJsonUri(folder));
    return this.get(folder);
  }

  /** A change on disk: the file is read again unless an open document has unsaved edits. */
  private onDisk(uri: vscode.Uri): void {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (!doc?.isDirty) this.schedule(uri, 0);
  }

  private schedule(changed: vscode.Uri, delay: number): void {
    for (const folder of sourceOf(changed)?.folders ?? []) this.scheduleFolder(folder, delay);
  }

  private scheduleFolder(folder: vscode.WorkspaceFolder, delay: number): void {
    const uri = mcpJsonUri(folder);
    const key = uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.set(key, setTimeout(() => {
      this.timers.delete(key);
      void this.run(uri);
    }, delay));
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
    const started = performance.now();
    try {
      const unsaved = new Map<string, Uint8Array>();
      for (const d of vscode.workspace.textDocuments) {
        if (!d.isDirty || d.isClosed) continue;
        const source = sourceOf(d.uri);
        if (source?.folders.some((f) => f.uri.toString() === folder.uri.toString())) unsaved.set(source.spec.path, Buffer.from(d.getText(), 'utf8'));
      }
      const analysis = await analyzeFolder(this.options(folder), (p) => unsaved.get(p));
      if (this.latest.get(key) !== generation) return; // a newer run read the files again
      if (!analysis.usable && analysis.problems.some((p) => p.code === 'missing-source')) {
        this.publish(key, new Map());
        this.results.delete(key);
        this.changed.fire(folder);
        return;
      }
      const byFile = new Map<string, Analysis['problems']>();
      for (const p of analysis.problems) byFile.set(p.file, [...(byFile.get(p.file) ?? []), p]);
      const diagnostics = new Map<string, vscode.Diagnostic[]>([[key, []]]);
      for (const [file, problems] of byFile) {
        const fileUri = sourceUri(folder.uri, file);
        const open = vscode.workspace.textDocuments.some((d) => d.uri.toString() === fileUri.toString() && !d.isClosed);
        diagnostics.set(fileUri.toString(), toDiagnostics(problems, folder.uri, this.docsUri, open));
      }
      this.publish(key, diagnostics);
      if (unsaved.size) this.lastDocumentUpdateMs = performance.now() - started;
      const result = { folder, analysis, fromDocument: unsaved.size > 0 };
      this.results.set(key, result);
      this.log.debug(`analysed ${vscode.workspace.asRelativePath(uri)}: ${analysis.servers.length} exportable, ${analysis.rejected.length} refused, ${analysis.problems.length} problems`);
      this.changed.fire(result);
    } catch (error) {
      this.log.error(`analysing ${uri.fsPath} failed`, error);
    }
  }

  /** Replaces what one folder shows in every file; a file's diagnostics are the union over the folders that read it. */
  private publish(folderKey: string, diagnostics: Map<string, vscode.Diagnostic[]>): void {
    const touched = new Set(diagnostics.keys());
    for (const [file, byFolder] of this.published) if (byFolder.has(folderKey)) touched.add(file);
    for (const file of touched) {
      const byFolder = this.published.get(file) ?? new Map<string, vscode.Diagnostic[]>();
      const mine = diagnostics.get(file);
      if (mine?.length) byFolder.set(folderKey, mine);
      else byFolder.delete(folderKey);
      const seen = new Set<string>();
      const union = [...byFolder.values()].flat().filter((d) => {
        const id = JSON.stringify([d.range, d.message, d.code]);
        return !seen.has(id) && !!seen.add(id);
      });
      if (byFolder.size) this.published.set(file, byFolder);
      else this.published.delete(file);
      if (union.length) this.collection.set(vscode.Uri.parse(file), union);
      else this.collection.delete(vscode.Uri.parse(file));
    }
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
