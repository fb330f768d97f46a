import * as vscode from 'vscode';
import { problemTemplate } from '../../core/app/problemCatalog';
import type { FolderProbe } from '../../core/app/probe';
import type { ProbeProblemCode } from '../../core/tools/probeProblemCodes';
import { COMMAND } from '../commandIds';
import { DIAGNOSTIC_SOURCE } from '../diagnostics';
import { translate } from '../l10n';
import { sourceUri } from '../mcpFiles';
import type { ServerTools } from '../../core/app/probedTools';
import type { Range } from '../../core/json/text';
import { visibleLine } from '../../core/json/visibleText';
import { l10n } from '../l10nLookup';

export const PROBE_FAILED: Readonly<Record<string, ProbeProblemCode>> = {
  'did-not-start': 'probe-did-not-start',
  'timed-out': 'probe-timed-out',
  'not-mcp': 'probe-not-mcp',
  'newer-mcp': 'probe-newer-mcp',
  'refused': 'probe-refused',
  // The host store's trust mode (set by the CLI or another editor) can refuse what the editor's setting allowed.
  'not-approved': 'probe-refused',
  'trust-deny': 'probe-refused',
};
const DRIFT_CODES: ReadonlySet<string> = new Set(['tool-changed', 'tool-new']);

function message(code: ProbeProblemCode, args: Record<string, string>): string {
  return translate(problemTemplate(code, args) ?? code, args);
}

/**
 * The probe's diagnostics, each on its server's key in the file that defines it: a server the last
 * probe could not start, time out or talk MCP to (with the first lines of its stderr, secrets
 * masked by the core), and every tool whose recorded definition differs from the pin the
 * declaration signs (with the "Re-probe and accept" quick fix). Its own collection: these come
 * from running servers, not from the file's text, and change only when a probe or an export does.
 */
export class ProbeDiagnostics implements vscode.Disposable, vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];
  private readonly collection = vscode.languages.createDiagnosticCollection(`${DIAGNOSTIC_SOURCE}-probe`);

  /** Files each folder's diagnostics were put in (an entry may live in another source file than mcp.json). */
  private readonly files = new Map<string, Set<string>>();
  /** The server a drift diagnostic is about, for its quick fix. */
  private readonly servers = new WeakMap<vscode.Diagnostic, string>();

  /** `docsUri`: the link of a code (problemDocs.ts). */
  constructor(private readonly docsUri: (code: string) => vscode.Uri) {}

  /**
   * Sets a folder's probe diagnostics from its last probe (this session) and its servers' tools,
   * each on its server's key where the analysis found it (`serverKeys`: mcp.json or another
   * source file); a server whose key is not known is left out.
   */
  update(folder: vscode.WorkspaceFolder, probe: FolderProbe | undefined, tools: ReadonlyMap<string, ServerTools>, keys: Readonly<Record<string, { file: string; range: Range }>>): void {
    const byFile = new Map<string, { uri: vscode.Uri; diagnostics: vscode.Diagnostic[] }>();
    const add = (server: string, code: ProbeProblemCode, text: string, severity: vscode.DiagnosticSeverity) => {
      const key = Object.hasOwn(keys, server) ? keys[server] : undefined;
      if (!key) return;
      const uri = sourceUri(folder.uri, key.file);
      const r = key.range;
      const d = new vscode.Diagnostic(new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character), text, severity);
      d.source = DIAGNOSTIC_SOURCE;
      d.code = { value: code, target: this.docsUri(code) };
      this.servers.set(d, server);
      const entry = byFile.get(uri.toString()) ?? { uri, diagnostics: [] };
      entry.diagnostics.push(d);
      byFile.set(uri.toString(), entry);
    };
    for (const s of probe?.servers ?? []) {
      const code = Object.hasOwn(PROBE_FAILED, s.outcome) ? PROBE_FAILED[s.outcome] : undefined;
      if (!code) continue;
      const detail = s.message.replace(/^(did not start|timed out|does not speak MCP|not started): /, '');
      const lines = s.stderr.length ? `\n${l10n.t('First lines of its stderr (secrets masked):')}\n${s.stderr.map(visibleLine).join('\n')}` : '';
      add(s.name, code, `${message(code, { server: s.name, detail })}${lines}`, vscode.DiagnosticSeverity.Warning);
    }
    for (const [server, t] of tools) {
      for (const tool of t.tools) {
        // Its name is the recorded one, the value masked.
        if (tool.carriesInputs) add(server, 'tool-carries-secret', message('tool-carries-secret', { tool: tool.name, server, inputs: tool.carriesInputs.join(', ') }), vscode.DiagnosticSeverity.Warning);
        if (tool.drift?.state === 'changed') {
          const changes = tool.drift.changes.map((c) => (c === 'description' ? l10n.t('description') : l10n.t('schema'))).join(', ');
          add(server, 'tool-changed', message('tool-changed', { tool: tool.name, server, changes }), vscode.DiagnosticSeverity.Warning);
        } else if (tool.drift?.state === 'new') {
          add(server, 'tool-new', message('tool-new', { tool: tool.name, server }), vscode.DiagnosticSeverity.Warning);
        }
      }
    }
    this.clear(folder);
    for (const { uri, diagnostics } of byFile.values()) this.collection.set(uri, diagnostics);
    this.files.set(folder.uri.toString(), new Set(byFile.keys()));
  }

  clear(folder: vscode.WorkspaceFolder): void {
    for (const uri of this.files.get(folder.uri.toString()) ?? []) this.collection.delete(vscode.Uri.parse(uri));
    this.files.delete(folder.uri.toString());
  }

  /** "Re-probe and accept" on a drift diagnostic: probes that server again, then exports the folder (signing the new pins). */
  provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const drift = context.diagnostics.filter((d) => d.source === DIAGNOSTIC_SOURCE && typeof d.code === 'object' && DRIFT_CODES.has(String(d.code.value)));
    if (drift.length === 0 || !vscode.workspace.isTrusted) return [];
    const folder = vscode.workspace.getWorkspaceFolder(document.uri);
    if (!folder) return [];
    // The diagnostics in the context are ours (the same objects) when they come from this collection.
    const ours = (this.collection.get(document.uri) ?? []).filter((d) => this.servers.has(d));
    const actions: vscode.CodeAction[] = [];
    const seen = new Set<string>();
    for (const d of drift) {
      const server = this.servers.get(d) ?? this.servers.get(ours.find((o) => o.range.isEqual(d.range) && o.message === d.message) as vscode.Diagnostic);
      if (!server || seen.has(server)) continue;
      seen.add(server);
      const action = new vscode.CodeAction(visibleLine(l10n.t('Re-probe "{0}" and accept its tools', server)), vscode.CodeActionKind.QuickFix);
      action.command = { title: action.title, command: COMMAND.reprobeAndAccept, arguments: [folder.uri, server] };
      action.diagnostics = drift.filter((x) => x.range.isEqual(d.range));
      action.isPreferred = true;
      actions.push(action);
    }
    return actions;
  }

  /** The probe diagnostics of a file (for tests). */
  get(uri: vscode.Uri): readonly vscode.Diagnostic[] {
    return this.collection.get(uri) ?? [];
  }

  dispose(): void {
    this.collection.dispose();
  }
}
