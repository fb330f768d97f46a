import * as os from 'node:os';
import * as vscode from 'vscode';
import { askSafeFirst, showInformation, showWarning } from '../visible';
import type { DeclaredServer } from '../../core/declaration/declarationModel';
import { reviewServer, unapprovedLaunches } from '../../core/app/approve';
import { sentences, translate } from '../l10n';
import { analyzeFolder } from '../../core/app/folderSources';
import type { HostStore } from '../../core/node/hostStore';
import { probeFolder, type FolderProbe } from '../../core/app/probe';
import { reviewServers } from '../approval';
import { fileFolders } from '../mcpFiles';
import type { Ctx } from '../ctx';
import { requireWorkspaceTrust } from '../workspaceTrust';
import { editorFreeEnv } from './probeEnv';
import { toolSettingLayers } from './toolSettings';
import { SERVERS_VIEW_ID } from '../commandIds';
import { visibleLine } from '../../core/json/visibleText';
import { l10n } from '../l10nLookup';

/** What one probe command did (nothing secret: names, outcomes and counts). */
export interface ProbeSummary {
  outcome: 'probed' | 'restricted' | 'denied' | 'cancelled' | 'no-folder' | 'nothing';
  folders: Array<{ folder: string; servers: Array<{ name: string; outcome: string; tools: number }>; error?: string }>;
}

/** A probe's target: a view node (server or folder), a folder URI with optional entry names, or nothing (pick). */
export interface ProbeTarget {
  folder: vscode.WorkspaceFolder;
  names?: string[];
}

/**
 * "DSH: Probe MCP Servers": starts the chosen servers of a folder as DSH would (the core's
 * probeFolder: the row the DSH plugin builds, the host store's input values, the environment
 * without the editor's own variables), lists their tools, stops them. Consent is the export's
 * under the trust mode: never in Restricted Mode (checked here too: commands can be invoked
 * programmatically), nothing in `deny`, in `pinned` the export's own review for servers not
 * approved for their pin, in `ask` one confirmation showing every launch. The last probe of
 * each folder is kept for the view and the diagnostics; the core records successful ones in the
 * host store, from which the next export pins the tools.
 */
export class ProbeRunner implements vscode.Disposable {
  private readonly last = new Map<string, FolderProbe>();
  private readonly probed = new vscode.EventEmitter<vscode.WorkspaceFolder>();
  /** Fires after a folder was probed. */
  readonly onDidProbe = this.probed.event;
  private running: Promise<unknown> = Promise.resolve();

  private readonly log: vscode.LogOutputChannel;

  constructor(private readonly ctx: Ctx) {
    this.log = ctx.log;
  }

  /** The last probe of a folder in this session, if any. */
  lastProbe(folder: vscode.WorkspaceFolder): FolderProbe | undefined {
    return this.last.get(folder.uri.toString());
  }

  async run(target: ProbeTarget | undefined): Promise<ProbeSummary> {
    const none = (outcome: ProbeSummary['outcome']): ProbeSummary => ({ outcome, folders: [] });
    if (!requireWorkspaceTrust(l10n.t('Probe'), this.log)) return none('restricted');
    const folder = target?.folder ?? await pickFolder();
    if (!folder) return none(fileFolders().length ? 'cancelled' : 'no-folder');
    const trustMode = await this.ctx.trustMode();
    if (trustMode === 'deny') {
      const open = l10n.t('Open Settings');
      void showWarning(l10n.t('The DSH trust mode is "deny": no MCP server is started, not even to probe it.'), open).then((c) => {
        if (c === open) void vscode.commands.executeCommand('workbench.action.openSettings', 'dsh.trustMode');
      });
      return none('denied');
    }
    const analysis = await analyzeFolder(this.ctx.ports(), this.ctx.config.folder(folder).analyzeOptions);
    const wanted = target?.names ? new Set(target.names) : undefined;
    const servers = analysis.servers.filter((s) => !wanted || wanted.has(s.name));
    if (servers.length === 0) {
      void showInformation(l10n.t('{0} has no MCP server DSH could start: nothing to probe.', folder.name));
      return none('nothing');
    }
    const store = this.ctx.hostStore();
    if (!(await this.consent(servers, folder, trustMode, store))) {
      this.log.info(`probe of ${folder.name} cancelled: nothing was started`);
      return none('cancelled');
    }
    // Cancellable, with the server being probed: a first package download can take a while.
    const result = await this.serial(() => vscode.window.withProgress(
      { location: { viewId: SERVERS_VIEW_ID } },
      () => vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: visibleLine(l10n.t('Probing the MCP servers of {0}...', folder.name)), cancellable: true },
        (progress, token) => {
          const abort = new AbortController();
          let reported = 0;
          const cancelled = token.onCancellationRequested(() => abort.abort());
          return probeFolder(this.ctx.ports(), {
            folder: folder.uri.fsPath, folderName: folder.name, userHome: os.homedir(),
            settings: this.ctx.config.folder(folder).view, settingLayers: toolSettingLayers(folder), invalidSetting: this.ctx.config.invalidSetting,
            names: servers.map((s) => s.name), env: editorFreeEnv(process.env), consent: 'host-store', signal: abort.signal,
            // Each server being probed now with its place ("1 of 3: slow"); the bar grows as servers finish.
            onProgress: ({ probing, done, total }) => {
              progress.report({ message: visibleLine(probing.map((p) => l10n.t('{0} of {1}: {2}', p.index, total, p.name)).join(' \u00b7 ')), increment: ((done - reported) * 100) / total });
              reported = done;
            },
          }).finally(() => cancelled.dispose());
        },
      ),
    ));
    this.last.set(folder.uri.toString(), result);
    for (const s of result.servers) {
      this.log.info(`probe ${folder.name} / ${s.name}: ${s.outcome} (${s.message})${s.elapsedMs !== undefined ? ` in ${s.elapsedMs} ms` : ''}`);
      // Command lines as the core masked them.
      for (const p of s.leftRunning ?? []) this.log.warn(`probe ${folder.name} / ${s.name}: a process it started is still running: pid ${p.pid}, ${p.command}`);
    }
    if (result.error) this.log.warn(`probe of ${folder.name}: ${result.error}`);
    this.probed.fire(folder);
    this.report(result, folder);
    return {
      outcome: 'probed',
      folders: [{ folder: folder.uri.fsPath, servers: result.servers.map((s) => ({ name: s.name, outcome: s.outcome, tools: s.tools.length })), ...(result.error ? { error: result.error } : {}) }],
    };
  }

  /** Probes serially: two probes never start the same servers at once. */
  private serial<T>(fn: () => Thenable<T>): Promise<T> {
    const next = this.running.then(fn, fn);
    this.running = next.then(() => undefined, () => undefined);
    return next;
  }

  /**
   * The export's consent: in `pinned`, servers not approved for their pin go through the export's
   * review, and approvals given there are recorded (as an export would record them); in `ask`,
   * one modal shows every launch (Do Not Start its default when one is flagged). False: cancelled, nothing starts.
   */
  private async consent(servers: DeclaredServer[], folder: vscode.WorkspaceFolder, trustMode: string, store: HostStore): Promise<boolean> {
    if (trustMode === 'pinned') {
      const { servers: unapproved } = await unapprovedLaunches(store, folder.uri.fsPath, servers);
      const choices = await reviewServers(unapproved, folder);
      if (choices === 'cancel') return false;
      for (const s of unapproved) if (choices.get(s.serverName) === 'approve') await store.approve(folder.uri.fsPath, s.serverName, s.pin);
      return true;
    }
    // The exact launch of each, untruncated, with the dangers the export's review flags.
    const lines = servers.flatMap((s) => {
      const { review, warnings } = reviewServer(s);
      return [`${review.name}: ${review.launch}`, ...warnings.map((w) => `  \u26a0 ${translate(w.template, w.args)}`)];
    });
    const probe = l10n.t('Probe');
    const local = servers.filter((s) => s.transport === 'stdio').length;
    const remote = servers.length - local;
    const message = servers.length === 1
      ? (local ? l10n.t('Start MCP server "{0}" to list its tools?', servers[0].name) : l10n.t('Contact MCP server "{0}" to list its tools?', servers[0].name))
      : l10n.t('Probe these MCP servers of {0} to list their tools?', folder.name);
    // What happens differs by transport: a local server runs here, a remote one is only contacted.
    const detail = [
      ...(local ? [l10n.t('Local (stdio) servers run on this computer with your user\'s privileges, as DSH would start them, and are stopped once they have listed their tools.')] : []),
      ...(remote ? [l10n.t('Remote (http) servers do not run on this computer: they are contacted at their URLs, with their headers.')] : []),
      '', ...lines,
    ].join('\n');
    // A flagged launch is never one keypress from starting: a warning, Do Not Start its default.
    if (servers.some((s) => reviewServer(s).flagged)) return (await askSafeFirst('warning', message, detail, l10n.t('Do Not Start'), probe)) === probe;
    return (await showInformation(message, { modal: true, detail }, probe)) === probe;
  }

  private report(result: FolderProbe, folder: vscode.WorkspaceFolder): void {
    const ok = result.servers.filter((s) => s.outcome === 'ok');
    const stopped = result.servers.filter((s) => s.outcome === 'cancelled').map((s) => s.name);
    const failed = result.servers.filter((s) => s.outcome !== 'ok' && s.outcome !== 'cancelled');
    const tools = ok.reduce((n, s) => n + s.tools.length, 0);
    const parts: string[] = [];
    if (ok.length === 1) parts.push(tools === 1 ? l10n.t('Probed 1 MCP server of {0}: 1 tool.', folder.name) : l10n.t('Probed 1 MCP server of {0}: {1} tools.', folder.name, tools));
    else if (ok.length > 1) parts.push(tools === 1 ? l10n.t('Probed {0} MCP servers of {1}: 1 tool.', ok.length, folder.name) : l10n.t('Probed {0} MCP servers of {1}: {2} tools.', ok.length, folder.name, tools));
    if (failed.length === 1) parts.push(l10n.t('1 server could not be probed: see Problems.'));
    else if (failed.length > 1) parts.push(l10n.t('{0} servers could not be probed: see Problems.', failed.length));
    // A launcher's first start downloads the package: a time-out then says so, and what to do.
    for (const s of failed.filter((f) => f.outcome === 'timed-out' && f.launcher)) {
      parts.push(l10n.t('"{0}" starts through {1}, which may still have been downloading the package on its first start: probe again once the download is done.', s.name, s.launcher!));
    }
    // Named: the user sees which servers have no probe (and no recorded tools) from this run.
    if (stopped.length === 1) parts.push(l10n.t('Probe cancelled: "{0}" was not probed.', stopped[0]));
    else if (stopped.length > 1) parts.push(l10n.t('Probe cancelled: {0} servers were not probed ({1}).', stopped.length, stopped.map((n) => `"${n}"`).join(', ')));
    if (result.collisions.length) parts.push(l10n.t('Some tools get the same DSH name: see the view.'));
    const withheld = ok.reduce((n, s) => n + s.tools.filter((t) => t.scan === 'withheld').length, 0);
    if (withheld === 1) parts.push(l10n.t('1 tool has hidden or model-directed instructions and is withheld from DSH sessions until you accept it: see the view.'));
    else if (withheld > 1) parts.push(l10n.t('{0} tools have hidden or model-directed instructions and are withheld from DSH sessions until you accept them: see the view.', withheld));
    const left = result.servers.flatMap((s) => s.leftRunning ?? []);
    if (left.length === 1) parts.push(l10n.t('A process a server started still runs (pid {0}): see the log.', left[0].pid));
    else if (left.length > 1) parts.push(l10n.t('{0} processes the servers started still run: see the log.', left.length));
    const show = failed.length || result.collisions.length || left.length || stopped.length || withheld ? showWarning : showInformation;
    const showProblems = l10n.t('Show Problems');
    if (!parts.length) return;
    this.log.info(visibleLine(`probe of ${folder.name}: told the user: ${sentences(parts)}`));
    void show(sentences(parts), ...(failed.length ? [showProblems] : [])).then((c) => {
      if (c === showProblems) void vscode.commands.executeCommand('workbench.actions.view.problems');
    });
  }

  dispose(): void {
    this.probed.dispose();
  }
}

async function pickFolder(): Promise<vscode.WorkspaceFolder | undefined> {
  const folders = fileFolders();
  if (folders.length <= 1) return folders[0];
  return vscode.window.showWorkspaceFolderPick({ ignoreFocusOut: true });
}
