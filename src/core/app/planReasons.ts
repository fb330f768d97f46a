/**
 * The session plan's reason codes and fixes, as data: a code with its arguments, and a fix with
 * its code, arguments and the exact `dsh-bridge` command line (never translated). Faces word a
 * reason with {@link PLAN_MESSAGES} (English templates, the editor's l10n keys) and show the
 * command as it is. docs/session-plan.md has the table of every code, its meaning and its fix.
 */
import { shellQuote } from '../mcp/launchReview';
import type { VerifyCode } from '../declaration/declarationModel';
import type { ScanFinding } from '../scan/scan';

export const PLAN_MESSAGES = {
  // The declaration as a whole (every cargo of it).
  'no-declaration': 'No declaration (.dsh/declaration.json) in {looked}: nothing from DSH Bridge is mounted.',
  'no-declaration-source-above': 'No declaration (.dsh/declaration.json) in {looked}, and no MCP configuration there: the nearest is {source}. Export {folder} and start DSH in it (a session finds the declaration of a folder above only inside a project with .git).',
  'declaration-unreadable': 'The declaration {path} cannot be used: {message}.',
  'declaration-unsigned': 'The declaration {path} is refused: {message}.',
  'declaration-bad-signature': 'The declaration {path} is refused: {message}.',
  'declaration-tampered': 'The declaration {path} is refused: {message}.',
  'declaration-wrong-folder': 'The declaration {path} is refused: {message}.',
  'declaration-stale': 'The declaration {path} is stale: {message}.',
  'declaration-rollback': 'The declaration {path} is refused: {message}.',
  'declaration-stale-in-editor': 'The declaration {path} is stale for VS Code only: {message}. DSH, which cannot see VS Code\'s settings, still mounts it.',
  'declaration-stale-managed': 'The declaration {path} is stale: {message}. DSH still mounts it under the managed settings in force now.',
  'probed-since-export': 'Server {server} was probed since the export: its new tool pins wait for the next export (until then DSH offers its tools as they were pinned).',
  'store-unreadable': 'The bridge settings in the DSH home cannot be read ({error}): nothing is mounted.',
  'folder-record-unreadable': 'The stored input values and approvals of {folder} cannot be read ({error}): servers that need them do not start.',
  'trust-deny': 'The trust mode is "deny" on this machine: nothing is mounted.',
  'plan-failed': 'What a session gets could not be worked out ({error}): nothing is mounted.',
  // One MCP server, or the language servers (one row, one pin).
  'not-exported': 'Not exported yet (no declaration).',
  'refused-at-export': 'Refused at export ({codes}).',
  'shadowed-by-workspace': 'A user server: the workspace defines a server of the same name ({owner}), and VS Code runs the workspace\'s.',
  'input-missing': 'Input "{id}" has no value stored for {folder}.',
  'input-keychain-unreadable': 'Input "{id}" is kept in the OS keychain, which cannot be read now ({problem}: {detail}): unlock the keychain (log in to the desktop session, or unlock its login keyring) and start the session again, or store the value again.',
  'env-missing': 'The environment variable {name} is not set where DSH runs.',
  'row-refused': '{reason}.',
  'dsh-policy-denied': 'Withheld by the DSH policy {file}: its rule {rule} denies it.',
  'dsh-policy-not-allowed': 'Withheld by the DSH policy {file}: it is not in its allowlist ({rule}).',
  'dsh-policy-unreadable': 'Withheld: the DSH policy {file} cannot be used ({rule}), so every server is withheld.',
  'dsh-managed-denied': 'Withheld by the managed settings ({channel}: {file}): its rule {rule} denies it.',
  'dsh-managed-not-allowed': 'Withheld by the managed settings ({channel}: {file}): it is not in their allowlist ({rule}).',
  'dsh-managed-unreadable': 'Withheld: the managed settings ({channel}: {file}) cannot be used ({rule}), so every server is withheld.',
  'dsh-managed-sandbox': 'Withheld: the managed settings ({channel}: {file}) force the sandbox on ({rule}) without allowBypass, and DSH cannot sandbox a local MCP server.',
  'lsp-invalid-entry': 'An entry of dsh.lsp.servers is invalid, and DSH then registers none of the language servers.',
  'approved': 'Its pin is approved: it starts without asking.',
  'pin-not-approved': 'Trust mode "pinned" and its pin is not approved: DSH asks before it starts.',
  'ask-mode': 'Trust mode "ask": DSH asks before it starts.',
  // One tool of a server.
  'tool-pinned': 'Offered while its definition is the one pinned at the export.',
  'tool-unpinned': 'Offered as the server lists it: the server was never probed, so its tools are not pinned.',
  'tool-left-out': 'Left out by dsh.tools.',
  'tool-not-pinned': 'Withheld: it is not among the tools pinned at the export (in trust mode "ask", DSH asks).',
  'tool-changed-since-export': 'Withheld: the last probe recorded another definition than the one pinned at the export (the server changed it); the next export pins the new one.',
  'tool-hidden-instructions': 'Withheld: its definition has hidden or model-directed instructions ({codes}), and you have not accepted it.',
  'tool-accepted': 'Offered: you accepted this exact definition despite its findings ({codes}).',
  'tool-carries-secret': 'Withheld: its definition carries the value of the stored input {inputs}, which DSH would send to the model with every request.',
  // One skill root.
  'root-trusted': 'Trusted at its current content: its skills reach the session.',
  'root-untrusted': 'Not trusted on this machine: its skills are withheld.',
  'root-changed': 'Changed since it was trusted: its skills are withheld.',
  'root-too-large': 'Too large to pin, so it cannot be trusted: its skills are withheld.',
  'root-not-gated': 'Your own root: not gated.',
  // One skill.
  'skill-hidden-instructions': 'Withheld: its SKILL.md has hidden or model-directed instructions ({codes}), and you have not accepted it.',
  'skills-unreadable': 'The skill roots cannot be checked ({error}): every project and custom skill is withheld.',
} as const;
export type PlanReasonCode = keyof typeof PLAN_MESSAGES;

export type PlanArgs = Record<string, string | number>;

/**
 * - `export`, `check`: run in the declaration's folder (or the session folder when none was found);
 * - `trust-pinned`: the machine's trust mode; `approve`: one server's (or `lsp`) pin, in `pinned` mode;
 * - `inputs-set`: one input value for the folder; `set-env`: a variable in DSH's environment;
 * - `probe`: probe the server and export again (its tools get pins);
 * - `skills-trust`: review and trust a skill root;
 * - `tools-accept`, `skills-accept`: accept one tool definition or one SKILL.md at its pin despite its scan's findings;
 * - `policy`: show the MCP server policy in force and what it blocks (only its owner can change it).
 */
export type PlanFixCode = 'export' | 'check' | 'trust-pinned' | 'approve' | 'inputs-set' | 'set-env' | 'probe' | 'skills-trust' | 'tools-accept' | 'skills-accept' | 'policy';

export interface PlanFix {
  code: PlanFixCode;
  args: Record<string, string>;
  /** The command line that fixes it (POSIX shell quoting). */
  command: string;
}

export interface PlanReason {
  code: PlanReasonCode;
  args: PlanArgs;
  fix?: PlanFix;
}

/** One argument of a fix's command line, for a POSIX shell. */
const shellArg = (arg: string) => shellQuote(arg, { runnable: true });

/**
 * A fix as data, with its command line. `workspace` is the folder `--workspace` names; without
 * one (a DSH session with no workspace) the command names none.
 */
export function planFix(code: PlanFixCode, args: Record<string, string | undefined>): PlanFix {
  const ws = args.workspace === undefined ? '' : ` --workspace ${shellArg(args.workspace)}`;
  const command = {
    // An export made with --vscode-policy FILE is redone with it: without it, another policy (the machine's) would apply.
    export: () => `dsh-bridge export${ws}${args.vscodePolicy === undefined ? '' : ` --vscode-policy ${shellArg(args.vscodePolicy)}`}`,
    check: () => `dsh-bridge check${ws}`,
    'trust-pinned': () => (args.name !== undefined ? `dsh-bridge trust pinned && dsh-bridge approve ${shellArg(args.name)}${ws}` : 'dsh-bridge trust pinned'),
    approve: () => `dsh-bridge approve ${shellArg(args.name ?? '')}${ws}`,
    'inputs-set': () => `dsh-bridge inputs set ${shellArg(args.id ?? '')}${ws}`,
    'set-env': () => `export ${args.name ?? 'NAME'}=...`,
    probe: () => `dsh-bridge probe ${shellArg(args.name ?? '')}${ws} && dsh-bridge export${ws}`,
    'skills-trust': () => `dsh-bridge skills trust ${shellArg(args.root ?? '')}${ws}`,
    'tools-accept': () => `dsh-bridge tools accept ${shellArg(args.name ?? '')} ${shellArg(args.tool ?? '')} --pin ${shellArg(args.pin ?? '')}${ws}`,
    'skills-accept': () => `dsh-bridge skills accept ${shellArg(args.file ?? '')} --pin ${shellArg(args.pin ?? '')}${ws}`,
    policy: () => `dsh-bridge policy${ws}`,
  }[code]();
  return { code, args: Object.fromEntries(Object.entries(args).filter((e): e is [string, string] => e[1] !== undefined)), command };
}

export function reason(code: PlanReasonCode, args: PlanArgs = {}, fix?: PlanFix): PlanReason {
  return fix ? { code, args, fix } : { code, args };
}

/** The codes of a scan's errors, each once, in the order found: the `codes` of a reason the scan withholds for. */
/** The machine's DSH policy withholds it (no setup step can change that; a running server it withholds is stopped). */
export function byDshPolicy(r: Pick<PlanReason, 'code'>): boolean {
  return r.code.startsWith('dsh-policy-') || r.code.startsWith('dsh-managed-');
}

export function scanErrorCodes(findings: readonly ScanFinding[]): string {
  return [...new Set(findings.filter((f) => f.severity === 'error').map((f) => f.code))].join(', ');
}

/** The reason code of a verify code (`missing` is {@link PLAN_MESSAGES no-declaration}). */
export function declarationReasonCode(code: Exclude<VerifyCode, 'missing'>): PlanReasonCode {
  return `declaration-${code}`;
}

/** English words of a reason, through `word` (the editor passes its l10n). */
export function planMessage(r: Pick<PlanReason, 'code' | 'args'>, word: (template: string, args: PlanArgs) => string): string {
  return word(PLAN_MESSAGES[r.code], r.args);
}
