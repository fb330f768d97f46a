import * as vscode from 'vscode';
import { problemTemplate } from '../core/app/problemCatalog';
import type { Problem, Severity } from '../core/problems/problems';
import type { ChangedConcerns } from '../core/app/settingChanges';
import { translate } from './l10n';
import { visibleLine, visibleText } from '../core/json/visibleText';
import { DECLARATION_IGNORE_SELECTOR, MCP_SOURCES_GLOB } from './mcpFiles';

/** The `source` of every diagnostic of the extension (mcp.json, settings files, SKILL.md). */
export const DIAGNOSTIC_SOURCE = 'dsh-bridge';
/** How long an edit waits for the next keystroke before it is checked. */
const DEBOUNCE_MS = 300;

const SEVERITY: Record<Severity, vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};

/** Codes shown faded: what they point at is ignored or shadowed. */
const UNNECESSARY: ReadonlySet<string> = new Set(['dev-ignored', 'skill-shadowed', 'lsp-unknown-key']);

function toRange(r: Problem['range']): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}

/**
 * One diagnostic of a core problem, worded by the caller. `uriOf` maps `Problem.file` (and the
 * files of related information) to a URI; `docsUri` links the code to its explanation.
 */
export function toDiagnostic(problem: Problem, message: string, uriOf: (file: string) => vscode.Uri, docsUri: (code: string) => vscode.Uri): vscode.Diagnostic {
  // Messages quote the file: the Problems panel and hovers show them as plain text, hidden characters escaped.
  const d = new vscode.Diagnostic(toRange(problem.range), visibleText(message), SEVERITY[problem.severity]);
  d.source = DIAGNOSTIC_SOURCE;
  d.code = { value: problem.code, target: docsUri(problem.code) };
  if (problem.related?.length) {
    d.relatedInformation = problem.related.map((r) => new vscode.DiagnosticRelatedInformation(new vscode.Location(uriOf(r.file), toRange(r.range)), visibleLine(r.message)));
  }
  if (UNNECESSARY.has(problem.code)) d.tags = [vscode.DiagnosticTag.Unnecessary];
  return d;
}

/** A problem of a settings file or a skill file, worded from the problem catalog (its English message for a code not in it). */
function problemMessage(problem: Pick<Problem, 'code' | 'args' | 'message'>): string {
  const template = problemTemplate(problem.code, problem.args);
  return template ? translate(template, problem.args) : problem.message;
}

/**
 * Groups problems by file into diagnostics, dropping exact duplicates (the same user-level file
 * analysed for several workspace folders).
 */
export function diagnosticsByFile(problems: readonly Problem[], uriOf: (file: string) => vscode.Uri, docsUri: (code: string) => vscode.Uri): Map<string, { uri: vscode.Uri; diagnostics: vscode.Diagnostic[] }> {
  const out = new Map<string, { uri: vscode.Uri; diagnostics: vscode.Diagnostic[] }>();
  const seen = new Set<string>();
  for (const p of problems) {
    const key = JSON.stringify([p.file, p.code, p.range, p.message, p.related]);
    if (seen.has(key)) continue;
    seen.add(key);
    const uri = uriOf(p.file);
    let entry = out.get(uri.toString());
    if (!entry) out.set(uri.toString(), entry = { uri, diagnostics: [] });
    entry.diagnostics.push(toDiagnostic(p, problemMessage(p), uriOf, docsUri));
  }
  return out;
}

/** What a file event was, as a check sees it. */
export type FileEvent = 'open' | 'edit' | 'close' | 'save' | 'disk';

/**
 * One kind of file the extension checks (mcp.json, the settings that hold `dsh.lsp.servers`,
 * SKILL.md files). The owner routes every event to every check; each ignores what is not its own
 * and asks the owner to run its work, debounced.
 */
export interface Check {
  readonly kind: string;
  fileChanged(uri: vscode.Uri, event: FileEvent, document?: vscode.TextDocument): void;
  /** Checks everything again (folders, trust or the check's settings changed), after `delay` ms if given. */
  refreshAll(delay?: number): void;
  /** Whether a configuration change concerns this check. */
  wants(changed: ChangedConcerns): boolean;
}

/**
 * Owns THE diagnostic collection of the extension, with what keeps it current: the document
 * open/change/save/close listeners, the file watchers of the workspace, the folder and trust
 * listeners, and one debounce. The checks compute; the owner listens, schedules and publishes.
 * Each check replaces only its own diagnostics; a file two checks read shows both.
 */
export class DiagnosticsOwner implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection(DIAGNOSTIC_SOURCE);
  /** What each check shows in each file; the collection holds their union. */
  private readonly files = new Map<string, { uri: vscode.Uri; byCheck: Map<string, vscode.Diagnostic[]> }>();
  private readonly timers = new Map<string, { timer: NodeJS.Timeout; run: () => Promise<void> }>();
  private readonly checks: Check[] = [];
  private readonly disposables: vscode.Disposable[] = [this.collection];

  constructor(onConfiguration: vscode.Event<ChangedConcerns>) {
    const onDisk = (uri: vscode.Uri) => this.route(uri, 'disk');
    for (const pattern of [MCP_SOURCES_GLOB, DECLARATION_IGNORE_SELECTOR.pattern as string, '**/.vscode/settings.json', '{**/.git,**/.dsh/skills/**,**/.agents/skills/**}']) {
      const watcher = vscode.workspace.createFileSystemWatcher(pattern);
      this.disposables.push(watcher, watcher.onDidCreate(onDisk), watcher.onDidChange(onDisk), watcher.onDidDelete(onDisk));
    }
    this.disposables.push(
      vscode.workspace.onDidOpenTextDocument((doc) => this.route(doc.uri, 'open', doc)),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length) this.route(e.document.uri, 'edit', e.document);
      }),
      vscode.workspace.onDidSaveTextDocument((doc) => this.route(doc.uri, 'save', doc)),
      // A closed document's unsaved edits are gone: the file on disk counts again.
      vscode.workspace.onDidCloseTextDocument((doc) => this.route(doc.uri, 'close', doc)),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.refreshAll()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.refreshAll(0)),
      onConfiguration((changed) => {
        for (const check of this.checks) if (check.wants(changed)) check.refreshAll();
      }),
    );
  }

  /** Adds a check (the skills check joins when its part has loaded) and runs it. */
  add(check: Check): void {
    this.checks.push(check);
    check.refreshAll(0);
  }

  refreshAll(delay?: number): void {
    for (const check of this.checks) check.refreshAll(delay);
  }

  private route(uri: vscode.Uri, event: FileEvent, document?: vscode.TextDocument): void {
    for (const check of this.checks) check.fileChanged(uri, event, document);
  }

  /** Runs `task` once, `delay` ms after the last call with the same key (the one debounce). */
  schedule(key: string, task: () => Promise<void>, onError: (error: unknown) => void, delay = DEBOUNCE_MS): void {
    clearTimeout(this.timers.get(key)?.timer);
    const run = () => task().catch(onError);
    this.timers.set(key, {
      run,
      timer: setTimeout(() => {
        this.timers.delete(key);
        void run();
      }, delay),
    });
  }

  /** Whether work of this key waits for its debounce. */
  isScheduled(key: string): boolean {
    return this.timers.has(key);
  }

  /** Runs the waiting work of a key now, if any (a reader wants the current result). */
  flush(key: string): Promise<void> | undefined {
    const waiting = this.timers.get(key);
    if (!waiting) return undefined;
    clearTimeout(waiting.timer);
    this.timers.delete(key);
    return waiting.run();
  }

  /** Sets the diagnostics one check has for one file (empty: none). */
  set(kind: string, uri: vscode.Uri, diagnostics: vscode.Diagnostic[]): void {
    const key = uri.toString();
    let file = this.files.get(key);
    if (!file) this.files.set(key, file = { uri, byCheck: new Map() });
    if (diagnostics.length) file.byCheck.set(kind, diagnostics);
    else file.byCheck.delete(kind);
    if (file.byCheck.size === 0) {
      this.files.delete(key);
      this.collection.delete(uri);
    } else {
      // A file two checks read (a workspace file holds MCP servers and dsh.lsp.servers) shows both.
      this.collection.set(uri, [...file.byCheck.values()].flat());
    }
  }

  delete(kind: string, uri: vscode.Uri): void {
    this.set(kind, uri, []);
  }

  /** Replaces every file a check published with `files`. */
  replace(kind: string, files: Iterable<{ uri: vscode.Uri; diagnostics: vscode.Diagnostic[] }>): void {
    const next = new Map<string, { uri: vscode.Uri; diagnostics: vscode.Diagnostic[] }>();
    for (const f of files) next.set(f.uri.toString(), f);
    for (const uri of this.filesOf(kind)) if (!next.has(uri.toString())) this.set(kind, uri, []);
    for (const f of next.values()) this.set(kind, f.uri, f.diagnostics);
  }

  /** Files a check published. */
  filesOf(kind: string): vscode.Uri[] {
    return [...this.files.values()].filter((f) => f.byCheck.has(kind)).map((f) => f.uri);
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.timers.clear();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
