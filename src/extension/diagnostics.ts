import * as vscode from 'vscode';
import { analyzeSource, type Analysis } from '../core/mcp/analyze';
import { analyzeFolder } from '../core/node/declarationFiles';
import type { Problem, Severity } from '../core/problems/problems';
import { problemMessage } from './l10n';
import { keepForDocument } from './decisions';
import { fileFolders, folderOfMcpJson, mcpJsonUri } from './mcpFiles';
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
        new vscode.Location(vscode.Uri.joinPath(folderUri, ...r.file.split('/')), toRange(r.range)), r.message));
    }
    if (p.code === 'dev-ignored') d.tags = [vscode.DiagnosticTag.Unnecessary];
    out.push(d);
  }
  return out;
}

/**
 * Owns THE diagnostic collection for every folder's `.vscode/mcp.json`, with what keeps it
 * current: the open/change/close listeners (changes debounced), a file watcher for files
 * that are not open, and the workspace-folder listener.
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

  constructor(
    private readonly options: (folder: vscode.WorkspaceFolder) => AnalyzeOptions,
    private readonly docsUri: (code: string) => vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
  ) {
    const watcher = vscode.workspace.createFileSystemWatcher('**/.vscode/mcp.json');
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
    this.collection.forEach((uri) => {
      if (!live.has(uri.toString())) this.collection.delete(uri);
    });
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

  private schedule(uri: vscode.Uri, delay: number): void {
    if (!folderOfMcpJson(uri)) return;
    const key = uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.set(key, setTimeout(() => {
      this.timers.delete(key);
      void this.run(uri);
    }, delay));
  }

  /**
   * Analyses the text with unsaved edits when there are any, else the file on disk: a clean
   * document can lag behind the disk (another component may hold an old model of the file).
   */
  private async run(uri: vscode.Uri): Promise<void> {
    const folder = folderOfMcpJson(uri);
    if (!folder) return;
    const key = uri.toString();
    const generation = ++this.generation;
    this.latest.set(key, generation);
    const started = performance.now();
    try {
      const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key && !d.isClosed);
      const doc = open?.isDirty ? open : undefined;
      const options = this.options(folder);
      let analysis: Analysis;
      if (doc) {
        analysis = analyzeSource(Buffer.from(doc.getText(), 'utf8'), options);
      } else {
        analysis = await analyzeFolder(options);
        if (this.latest.get(key) !== generation) return; // a newer run read the file again
        if (!analysis.usable && analysis.problems.some((p) => p.code === 'missing-source')) {
          this.collection.delete(uri);
          this.results.delete(key);
          this.changed.fire(folder);
          return;
        }
      }
      if (this.latest.get(key) !== generation) return;
      this.collection.set(uri, toDiagnostics(analysis.problems, folder.uri, this.docsUri, !!open));
      if (doc) this.lastDocumentUpdateMs = performance.now() - started;
      const result = { folder, analysis, fromDocument: !!doc };
      this.results.set(key, result);
      this.log.debug(`analysed ${vscode.workspace.asRelativePath(uri)}: ${analysis.servers.length} exportable, ${analysis.rejected.length} refused, ${analysis.problems.length} problems`);
      this.changed.fire(result);
    } catch (error) {
      this.log.error(`analysing ${uri.fsPath} failed`, error);
    }
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
