/**
 * Approving a launch for the `pinned` trust mode: what a user reads before a declared server, or
 * the folder's language servers, may start, and what an approval records (a name and a pin in
 * the host store). `dsh-bridge approve`, the editor's export review and probe, and the DSH
 * plugin's in-turn approval all show this review; every text in it is shown text (hidden
 * characters escaped by the reviews of core/mcp and core/lsp).
 */
import type { Declaration, DeclaredServer, LspDeclarationSection } from '../declaration/declarationModel';
import { LSP_APPROVAL_NAME, describeLspServers, lspLaunchLine, lspReviewLines, lspSectionUsable } from '../lsp/lspRow';
import { isFlagged, reviewLaunch, reviewLines, reviewWarnings, type LaunchReview, type ReviewWarning } from '../mcp/launchReview';
import type { HostStorePort } from './ports';

export type { LaunchReview, ReviewWarning };

/** A pin as a reader compares it: `sha256:` and the hash's first 12 hex digits, the cut marked (the full pin is what an approval binds). */
export function shortPin(pin: string): string {
  return `${pin.slice(0, 'sha256:'.length + 12)}\u2026`;
}

/** One server's review before its launch is approved. */
export interface ServerReview {
  server: DeclaredServer;
  review: LaunchReview;
  /** A danger or an unpinned launcher: never approved by one keypress or a checkbox alone. */
  flagged: boolean;
  /** Its dangers and its unpinned launcher, in the order `lines` says them: every face shows all of them. */
  warnings: ReviewWarning[];
  /** The review in English lines, as `dsh-bridge approve` prints it and DSH's approval request carries it. */
  lines: string[];
  /** What an approval records: the server's name and its pin. */
  approvalName: string;
  pin: string;
}

export function reviewServer(server: DeclaredServer): ServerReview {
  const review = reviewLaunch(server);
  return {
    server,
    review,
    flagged: isFlagged(review),
    warnings: reviewWarnings(review),
    lines: reviewLines(server, review),
    approvalName: server.serverName,
    pin: server.pin,
  };
}

/** The review of a folder's language servers: DSH starts them as one row, so one approval covers the section's pin. */
export interface LanguageServersReview {
  /** Whether DSH registers the section's servers at all (one invalid entry, or none: it registers none, and there is nothing to approve). */
  registers: boolean;
  /** `"ts" (.ts, .tsx), ...` on one line, for prompts and logs. */
  summary: string;
  servers: Array<{ id: string; command: string; args: string[]; extensions: string[]; envNames: string[]; launch: string }>;
  lines: string[];
  approvalName: string;
  pin: string;
}

export function reviewLanguageServers(section: LspDeclarationSection): LanguageServersReview {
  const outline = languageServersOutline(section);
  return {
    registers: outline.registers,
    summary: outline.summary,
    servers: Object.entries(section.servers).map(([id, s]) => ({
      id, command: s.command, args: s.args, extensions: Object.keys(s.extensionToLanguage), envNames: Object.keys(s.env), launch: lspLaunchLine(s),
    })),
    lines: lspReviewLines(section),
    approvalName: outline.approvalName,
    pin: outline.pin,
  };
}

/** The review without its launch lines: what the DSH plugin decides with at every model step (only its approval question shows the lines). */
export type LanguageServersOutline = Pick<LanguageServersReview, 'registers' | 'summary' | 'approvalName' | 'pin'>;

export function languageServersOutline(section: LspDeclarationSection): LanguageServersOutline {
  return { registers: lspSectionUsable(section), summary: describeLspServers(section), approvalName: LSP_APPROVAL_NAME, pin: section.pin };
}

/** The review of a declaration's language servers when there is one to approve. */
function approvableLanguageServers(section: LspDeclarationSection | undefined): LanguageServersReview | undefined {
  const review = section && reviewLanguageServers(section);
  return review?.registers ? review : undefined;
}

/** Whether an approval name (one of a folder's approved or skipped) is the language servers' rather than a server's. */
export function isLanguageServersApproval(name: string): boolean {
  return name === LSP_APPROVAL_NAME;
}

/** What `dsh-bridge approve NAME... --yes PIN...` selects of a declaration: names that match nothing, pins no selected review has, or the reviews. */
export type ApprovalSelection =
  | { kind: 'unknown-names'; names: string[]; known: string[] }
  | { kind: 'stray-pins'; pins: string[] }
  | { kind: 'selected'; servers: ServerReview[]; languageServers?: LanguageServersReview };

/**
 * Selects by name (a server's name or serverName, `lsp` for the language servers; none: all).
 * A `--yes` pin that no selected review has means the entry changed since it was reviewed.
 */
export function selectForApproval(declaration: Pick<Declaration, 'servers' | 'lsp'>, names: readonly string[], pins: ReadonlySet<string>): ApprovalSelection {
  const { servers } = declaration;
  const lsp = approvableLanguageServers(declaration.lsp);
  const unknown = names.filter((n) => !servers.some((s) => s.name === n || s.serverName === n) && !(n === 'lsp' && lsp));
  if (unknown.length) return { kind: 'unknown-names', names: unknown, known: servers.map((s) => s.name) };
  const selected = (names.length ? servers.filter((s) => names.includes(s.name) || names.includes(s.serverName)) : servers).map(reviewServer);
  const languageServers = lsp && (names.length === 0 || names.includes('lsp')) ? lsp : undefined;
  const stray = [...pins].filter((pin) => !selected.some((s) => s.pin === pin) && pin !== languageServers?.pin);
  if (stray.length) return { kind: 'stray-pins', pins: stray };
  return { kind: 'selected', servers: selected, ...(languageServers ? { languageServers } : {}) };
}

type FolderApprovals = Awaited<ReturnType<HostStorePort['readFolder']>>['approvals'];

/** Whether a folder's approvals hold this name with this exact pin (an approval of another pin counts for nothing). */
export function isApprovedIn(approvals: FolderApprovals, approvalName: string, pin: string): boolean {
  return approvals.some((a) => a.serverName === approvalName && a.pin === pin);
}

/** The reviews a folder's export (or probe) asks for in `pinned`: servers whose pin is not approved, and the language servers when theirs is not. */
export async function unapprovedLaunches(store: Pick<HostStorePort, 'readFolder'>, folder: string, servers: readonly DeclaredServer[], lsp?: LspDeclarationSection): Promise<{ servers: DeclaredServer[]; languageServers?: LanguageServersReview }> {
  const { approvals } = await store.readFolder(folder);
  const languageServers = approvableLanguageServers(lsp);
  return {
    servers: servers.filter((s) => !isApprovedIn(approvals, s.serverName, s.pin)),
    ...(languageServers && !isApprovedIn(approvals, languageServers.approvalName, languageServers.pin) ? { languageServers } : {}),
  };
}
