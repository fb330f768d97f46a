/**
 * What the "MCP Servers for DSH" view shows of one folder, decided without the editor: the
 * servers of `.vscode/mcp.json` in source order, each with the state DSH sessions see. Kept free
 * of `vscode` so plain-Node unit tests cover it (test/unit/extension/toolsView/serverRows.test.ts).
 */
import { nodeRange, parseJsonc, properties, propertyValue } from '../../core/json/jsonTree';
import { LineIndex, type Range } from '../../core/json/text';
import { declarationState, REFUSED_BY_DSH, type DeclarationState } from '../decisions';

/**
 * One server's state, most decisive first:
 * - `refused`: the export refuses the entry (codes say why; see Problems);
 * - `declaration-refused`: the declaration on disk is one DSH refuses as a whole (tampered, unsigned, ...);
 * - `not-exported`: not in the declaration (none yet, or added since);
 * - `stale`: in the declaration, but the entry changed since (DSH still runs the exported one);
 * - `not-approved`: exported as is, trust mode `pinned`, not approved for its pin (DSH asks);
 * - `exported`: exported as is, nothing pending.
 */
export type ServerState = 'refused' | 'declaration-refused' | 'not-exported' | 'stale' | 'not-approved' | 'exported';

export interface ServerRow {
  /** The entry's key in mcp.json. */
  name: string;
  /** DSH's server name (the declaration's `serverName`); undefined for a refused entry. */
  serverName?: string;
  state: ServerState;
  /** `refused`: the problem codes; `declaration-refused`: the declaration's state. */
  codes: string[];
  declarationState: DeclarationState;
  transport?: 'stdio' | 'streamable-http';
}

export interface FolderRows {
  /** False when mcp.json cannot be used at all (see Problems): no rows. */
  usable: boolean;
  declarationState: DeclarationState;
  servers: ServerRow[];
}

export interface RowFacts {
  analysis: {
    usable: boolean;
    servers: ReadonlyArray<{ name: string; serverName: string; pin: string; transport: 'stdio' | 'streamable-http' }>;
    rejected: ReadonlyArray<{ name: string; codes: ReadonlyArray<string> }>;
  };
  verify: {
    ok: boolean;
    reasons: ReadonlyArray<{ code: string; message: string }>;
    declaration?: { servers: ReadonlyArray<{ serverName: string; pin: string }> };
  };
  trustMode: string;
  approvals: ReadonlyArray<{ serverName: string; pin: string }>;
  /** Entry names in source order (serverEntries of the text); missing names go last. */
  order?: ReadonlyArray<string>;
}

export function folderRows(facts: RowFacts): FolderRows {
  const declaration = declarationState(facts.verify);
  const rows: ServerRow[] = [];
  const declared = new Map((facts.verify.declaration?.servers ?? []).map((s) => [s.serverName, s.pin]));
  // verify names a server whose envFile changed: its launch changed though its pin did not.
  const envFileStale = (serverName: string) => facts.verify.reasons.some((r) => r.code === 'stale' && r.message.includes(`"${serverName}"`));
  for (const s of facts.analysis.servers) {
    const base = { name: s.name, serverName: s.serverName, declarationState: declaration, transport: s.transport };
    let state: ServerState;
    if (REFUSED_BY_DSH.has(declaration)) state = 'declaration-refused';
    else if (declaration === 'missing' || !declared.has(s.serverName)) state = 'not-exported';
    else if (declared.get(s.serverName) !== s.pin || envFileStale(s.serverName)) state = 'stale';
    else if (facts.trustMode === 'pinned' && !facts.approvals.some((a) => a.serverName === s.serverName && a.pin === s.pin)) state = 'not-approved';
    else state = 'exported';
    rows.push({ ...base, state, codes: state === 'declaration-refused' ? [declaration] : [] });
  }
  for (const r of facts.analysis.rejected) rows.push({ name: r.name, state: 'refused', codes: [...r.codes], declarationState: declaration });
  if (facts.order) {
    const at = new Map(facts.order.map((name, i) => [name, i]));
    const rank = (name: string) => at.get(name) ?? Number.MAX_SAFE_INTEGER;
    rows.sort((a, b) => rank(a.name) - rank(b.name));
  }
  return { usable: facts.analysis.usable, declarationState: declaration, servers: rows };
}

/** The entries of `servers` in source order, each with the range of its key (for "open entry"). */
export function serverEntries(text: string): Array<{ name: string; range: Range }> {
  const { root } = parseJsonc(text);
  const lines = new LineIndex(text);
  return properties(propertyValue(root, 'servers')).map((p) => ({ name: p.key, range: nodeRange(lines, p.keyNode) }));
}

/** Counts a folder row of the view says: servers DSH can get, and servers refused. */
export function folderCounts(rows: FolderRows): { servers: number; refused: number } {
  const refused = rows.servers.filter((s) => s.state === 'refused').length;
  return { servers: rows.servers.length - refused, refused };
}
