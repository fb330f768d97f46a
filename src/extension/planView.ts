/**
 * The editor's view models of a session plan: `planViewModel` for the Verify notification and log,
 * `folderViewModel` (the plan over the folder's MCP files) for the status items and the servers
 * view: "what does a DSH session in this folder get". Free of `vscode`, so
 * plain-Node unit tests cover it (test/unit/extension/planView.test.ts) and the differential test
 * compares it with the plugin, `verify` and `doctor`. Rows are keyed by source file and server
 * name; declaration-wide reasons (stale, deny, another key, another folder) are the folder's and
 * every row's; the counts are the rows'.
 */
import type { PlanOutcome, SessionPlan, ToolState } from '../core/app/plan';
import type { PlanArgs, PlanFix, PlanReason, PlanReasonCode } from '../core/app/planReasons';
import { declaredServerSource } from '../core/app/folderSources';
import { withheldOf, type WithheldItems } from '../core/app/planWithheld';

export interface PlanViewRow {
  kind: 'server' | 'language-servers';
  /** `<source file>#<name>` for a server, `lsp` for the language servers: stable across refreshes. */
  key: string;
  /** What the row shows: the DSH serverName, or the language servers' ids. */
  label: string;
  /** The name in the source file (`lsp` for the language servers). */
  name: string;
  /** The source file that defines it (folder-relative, or the workspace file's absolute path). */
  file?: string;
  outcome: PlanOutcome;
  code: PlanReasonCode;
  args: PlanArgs;
  fix?: PlanFix;
  tools: Array<{ name: string; publicName: string; state: ToolState; code: PlanReasonCode }>;
}

export interface PlanViewModel {
  /** The session folder. */
  folder: string;
  /** The folder whose declaration applies (the session folder or one above it), when one was found. */
  declarationFolder?: string;
  declaration: SessionPlan['declaration']['state'];
  trustMode: SessionPlan['trustMode'];
  /** Why nothing of the declaration mounts: shown on the folder and on every row. */
  blocked: PlanReason[];
  notes: PlanReason[];
  rows: PlanViewRow[];
  /** Rows by outcome: every row is counted once. */
  counts: Record<PlanOutcome, number>;
  /** Skill names withheld from the session. */
  skillsWithheld: string[];
  /** Everything withheld (servers, tools, skills, language servers), as every face lists it. */
  withheld: WithheldItems;
}

export function planViewModel(plan: SessionPlan): PlanViewModel {
  const rows: PlanViewRow[] = plan.servers.map((s) => {
    const file = declaredServerSource(s);
    return {
      kind: 'server', key: `${file}#${s.name}`, label: s.serverName, name: s.name, file,
      outcome: s.outcome, code: s.reason.code, args: s.reason.args, ...(s.reason.fix ? { fix: s.reason.fix } : {}),
      tools: (s.tools?.tools ?? []).map((t) => ({ name: t.name, publicName: t.publicName, state: t.state, code: t.reason.code })),
    };
  });
  const lsp = plan.languageServers;
  if (lsp) {
    rows.push({
      kind: 'language-servers', key: 'lsp', label: lsp.servers.map((s) => s.id).join(', '), name: 'lsp',
      outcome: lsp.outcome, code: lsp.reason.code, args: lsp.reason.args, ...(lsp.reason.fix ? { fix: lsp.reason.fix } : {}), tools: [],
    });
  }
  const counts: Record<PlanOutcome, number> = { starts: 0, asks: 0, withheld: 0 };
  for (const row of rows) counts[row.outcome]++;
  return {
    folder: plan.cwd,
    ...(plan.declaration.folder !== undefined ? { declarationFolder: plan.declaration.folder } : {}),
    declaration: plan.declaration.state,
    trustMode: plan.trustMode,
    blocked: plan.blocked,
    notes: plan.notes,
    rows,
    counts,
    skillsWithheld: plan.skills?.withheld.map((w) => w.name) ?? [],
    withheld: withheldOf(plan),
  };
}

/** The rows of one outcome, by label, as a notification lists them. */
export function rowsWith(model: PlanViewModel, outcome: PlanOutcome, kind: PlanViewRow['kind'] = 'server'): string[] {
  return model.rows.filter((r) => r.outcome === outcome && r.kind === kind).map((r) => r.label);
}

/**
 * A row of the servers view: one entry of the folder's MCP files, keyed by its file and name, in
 * the state the session plan gives it. Most decisive first:
 * - `shadowed`: another file's entry of the same name wins it (VS Code's rule); it is not exported;
 * - `refused`: the export refuses the entry (codes say why; see Problems);
 * - the declaration-wide states, on every exportable row: `not-exported` (no declaration), `stale`,
 *   `deny` (trust mode), `declaration-refused` (another key, another folder, changed, ...);
 * - `changed`: in the declaration, but the entry changed since (stale for the editor only);
 * - the plan's outcome: `exported` (starts, or asks in trust mode `ask` as that mode means),
 *   `not-approved` (trust mode `pinned`, its pin not approved: DSH asks), `withheld` (a missing
 *   input or variable, the DSH policy, a row that cannot start: `code` says which).
 */
export type ServerRowState = 'shadowed' | 'refused' | 'not-exported' | 'stale' | 'deny' | 'declaration-refused' | 'changed' | 'exported' | 'not-approved' | 'withheld';

export interface ServerViewRow {
  /** `<file>#<name>`: unique in a folder, stable across refreshes. */
  key: string;
  /** The entry's key in its file. */
  name: string;
  /** The file that defines it (folder-relative, or a workspace file's absolute path). */
  file: string;
  /** DSH's server name (absent for a refused entry). */
  serverName?: string;
  transport?: 'stdio' | 'streamable-http';
  state: ServerRowState;
  /** The plan's reason code (`shadowed`, `refused`: the problem codes). */
  codes: string[];
  /** The reason with its arguments and fix (the declaration-wide one on such rows). */
  reason?: PlanReason;
  /** Refused or shadowed while the declaration as a whole does not mount: that reason too. */
  blocked?: PlanReason;
  /** `shadowed`: the file whose entry wins the name. */
  shadowedBy?: string;
  /** The last probe of the server in this session failed: what it said (a warning on the row). */
  probeFailed?: string;
}

export interface FolderViewModel {
  /** False when a file cannot be used at all (see Problems): no rows. */
  usable: boolean;
  /** Why nothing of the declaration mounts (see {@link PlanViewModel.blocked}). */
  blocked: PlanReason[];
  /** What holds without stopping the mount (e.g. stale for the editor only). */
  notes: PlanReason[];
  rows: ServerViewRow[];
  /**
   * `servers` is the number of rows (every row is an entry of the folder's MCP files, as the user
   * counts them), `refused` and `shadowed` the rows among them in those states: "5 servers · 1
   * refused" beside 5 rows, never "4 servers · 1 refused".
   */
  counts: { servers: number; refused: number; shadowed: number };
  /** Everything the plan withholds from a session (servers, tools, skills, language servers), as every face lists it. */
  withheld: WithheldItems;
}

/** What the servers view and the status item read of a folder's MCP files. */
export interface FolderSourceEntries {
  usable: boolean;
  /** The first file of the folder (the servers without a `source`). */
  sourcePath: string;
  servers: ReadonlyArray<{ name: string; serverName: string; pin: string; source?: string; transport: 'stdio' | 'streamable-http' }>;
  rejected: ReadonlyArray<{ name: string; codes: ReadonlyArray<string> }>;
  /** The located problems: a refused entry's file is its problem's. */
  problems: ReadonlyArray<{ code: string; file: string; server?: string; args: Readonly<Record<string, string | number>> }>;
}

const SHADOW_CODES: ReadonlySet<string> = new Set(['shadowed-server', 'duplicate-server']);

/** The state of every exportable row while the declaration as a whole does not mount. */
export function blockedState(code: PlanReasonCode): ServerRowState {
  if (code === 'no-declaration' || code === 'no-declaration-source-above') return 'not-exported';
  if (code === 'declaration-stale') return 'stale';
  if (code === 'trust-deny') return 'deny';
  return 'declaration-refused';
}

/**
 * The servers view of one folder: every entry of its MCP files (`sources`, as the editor reads
 * them now) in the state the session plan of the folder gives it. Pure; the view and the status
 * item word it, nothing else decides. `order`: entry names in the order the user wrote them
 * (missing names go last); `probeFailures`: the last probe's failures by entry name.
 */
export function folderViewModel(plan: SessionPlan, sources: FolderSourceEntries, options: { order?: ReadonlyArray<string>; probeFailures?: ReadonlyMap<string, string> } = {}): FolderViewModel {
  const withheld = withheldOf(plan);
  if (!sources.usable) return { usable: false, blocked: plan.blocked, notes: plan.notes, rows: [], counts: { servers: 0, refused: 0, shadowed: 0 }, withheld };
  const blocked = plan.blocked[0];
  // The plan's servers are those of the declaration that applies; another folder's declaration (a parent's) exports none of these entries.
  const own = plan.declaration.folder === undefined || plan.declaration.folder === plan.cwd;
  const planned = new Map(own ? plan.servers.filter((s) => s.pin !== undefined).map((s) => [`${s.name}\u0000${s.serverName}`, s]) : []);
  const rows: ServerViewRow[] = [];
  for (const s of sources.servers) {
    const file = s.source ?? sources.sourcePath;
    const base = { key: `${file}#${s.name}`, name: s.name, file, serverName: s.serverName, transport: s.transport };
    const p = planned.get(`${s.name}\u0000${s.serverName}`);
    let row: ServerViewRow;
    if (blocked) row = { ...base, state: blockedState(blocked.code), codes: [blocked.code], reason: blocked };
    else if (!p) row = { ...base, state: 'not-exported', codes: ['not-exported'] };
    else if (p.pin !== s.pin) row = { ...base, state: 'changed', codes: ['declaration-stale-in-editor'], ...(plan.notes[0] ? { reason: plan.notes[0] } : {}) };
    else {
      const state: ServerRowState = p.outcome === 'starts' || p.reason.code === 'ask-mode' ? 'exported' : p.outcome === 'asks' ? 'not-approved' : 'withheld';
      row = { ...base, state, codes: [p.reason.code], reason: p.reason };
    }
    rows.push(row);
  }
  // A refused entry's file: its located problem's (one problem per entry, taken once).
  const taken = new Set<number>();
  for (const r of sources.rejected) {
    const at = sources.problems.findIndex((p, i) => !taken.has(i) && p.server === r.name && r.codes.includes(p.code));
    if (at >= 0) taken.add(at);
    const problem = at >= 0 ? sources.problems[at] : undefined;
    const file = problem?.file ?? sources.sourcePath;
    const shadow = r.codes.find((c) => SHADOW_CODES.has(c));
    const by = shadow && problem ? String(problem.args.file ?? '') : '';
    rows.push({
      key: `${file}#${r.name}`, name: r.name, file, state: shadow ? 'shadowed' : 'refused', codes: [...r.codes],
      ...(blocked ? { blocked } : {}),
      ...(shadow && by ? { shadowedBy: by } : {}),
    });
  }
  if (options.order) {
    // The user's order within each file; the files in VS Code's order (the first file's entries first).
    const at = new Map(options.order.map((name, i) => [name, i]));
    const fileRank = new Map<string, number>();
    for (const row of rows) if (!fileRank.has(row.file)) fileRank.set(row.file, row.file === sources.sourcePath ? -1 : fileRank.size);
    const rank = (row: ServerViewRow) => (row.file === sources.sourcePath ? at.get(row.name) ?? Number.MAX_SAFE_INTEGER : Number.MAX_SAFE_INTEGER);
    rows.sort((a, b) => (fileRank.get(a.file)! - fileRank.get(b.file)!) || rank(a) - rank(b));
  }
  for (const row of rows) {
    const failed = options.probeFailures?.get(row.name);
    if (failed !== undefined && row.state !== 'shadowed' && row.state !== 'refused') row.probeFailed = failed;
  }
  const refused = rows.filter((r) => r.state === 'refused').length;
  const shadowed = rows.filter((r) => r.state === 'shadowed').length;
  return { usable: true, blocked: plan.blocked, notes: plan.notes, rows, counts: { servers: rows.length, refused, shadowed }, withheld };
}

/** What the status items say first (one word-sized state) and which action a click runs. */
export type FolderHeadline = 'no-servers' | 'exported' | 'stale' | 'not-exported' | 'deny' | 'needs-inputs' | 'refused' | 'unapproved' | 'withheld' | 'not-verified';
export type FolderAction = 'open-declaration' | 'export' | 'enter-inputs' | 'show-problems' | 'verify' | 'trust';

/**
 * The folder's headline from its view: the declaration-wide state first, then what a row needs.
 * A folder with no server at all (an empty `{"servers":{}}`) and no declaration is a state, not a warning.
 */
export function folderHeadline(view: FolderViewModel): { headline: FolderHeadline; action: FolderAction } {
  const blocked = view.blocked[0];
  if (blocked) {
    if (blocked.code === 'no-declaration' || blocked.code === 'no-declaration-source-above') return view.rows.length === 0 && view.usable ? { headline: 'no-servers', action: 'export' } : { headline: 'not-exported', action: 'export' };
    if (blocked.code === 'declaration-stale') return { headline: 'stale', action: 'export' };
    if (blocked.code === 'trust-deny') return { headline: 'deny', action: 'trust' };
    return { headline: 'not-verified', action: 'verify' };
  }
  // Stale for the editor only (VS Code's settings changed which servers it runs): DSH still mounts it, the editor says stale.
  if (view.notes.some((n) => n.code === 'declaration-stale-in-editor' || n.code === 'declaration-stale-managed') || view.rows.some((r) => r.state === 'not-exported' || r.state === 'changed')) return { headline: 'stale', action: 'export' };
  if (view.rows.some((r) => r.codes.includes('input-missing'))) return { headline: 'needs-inputs', action: 'enter-inputs' };
  if (view.counts.refused) return { headline: 'refused', action: 'show-problems' };
  if (view.rows.some((r) => r.state === 'withheld')) return { headline: 'withheld', action: 'verify' };
  if (view.rows.some((r) => r.state === 'not-approved')) return { headline: 'unapproved', action: 'export' };
  return { headline: 'exported', action: 'open-declaration' };
}
