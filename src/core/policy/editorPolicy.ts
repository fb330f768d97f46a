/**
 * The editor's policy for MCP servers, as VS Code applies it (1.130+, `contrib/mcp` configuration
 * registered with `policy:`; `src/vs/platform/mcp/common/allowedMcpServersService.ts`):
 *
 * - `chat.mcp.allowedServers` (policy `ChatAllowedMcpServers`) and `chat.mcp.deniedServers`
 *   (`ChatDeniedMcpServers`): the entries of ./serverMatch, deny first;
 * - `chat.mcp.allowManagedServersOnly` (`ChatAllowManagedMcpServersOnly`, `true` only): the
 *   allowlist is the policy's own value alone (none: everything is blocked), while deny entries of
 *   every settings level still apply;
 * - `chat.mcp.access` (`ChatMCP`): `none` runs no server; `registry` only servers installed from
 *   the gallery, which no server of a workspace file is.
 *
 * A blocked server is not exported: it is refused with its own code, located on its entry, the rule
 * that blocks it in the message. The declaration records a digest of the rules it was made under,
 * so a change of them makes it stale. Pure; never throws.
 */
import { parseTree, type ParseError } from 'jsonc-parser';
import { canonicalHash } from '../json/canonicalJson';
import { findDuplicateKeys, nodeValue } from '../json/jsonTree';
import { makeProblem, type Problem, type ProblemCode } from '../problems/problems';
import type { Analysis } from '../mcp/analysis';
import type { DeclaredServer } from '../declaration/declarationModel';
import { templateRefs, templateText } from '../declaration/template';
import { effectiveMcpAccess, type McpAccess } from '../mcp/sources';
import { checkServer, describeMatcher, serverMatchers, type MatchResult, type ServerIdentity, type ServerMatcher } from './serverMatch';

export const POLICY_SETTING = {
  allowed: 'chat.mcp.allowedServers',
  denied: 'chat.mcp.deniedServers',
  managedOnly: 'chat.mcp.allowManagedServersOnly',
  access: 'chat.mcp.access',
  collision: 'chat.mcp.collisionBehavior',
} as const;

/** VS Code's policy names (the keys of its Linux policy file, its ADMX and .mobileconfig) and the settings they set. */
export const POLICY_NAMES: Readonly<Record<string, string>> = {
  ChatAllowedMcpServers: POLICY_SETTING.allowed,
  ChatDeniedMcpServers: POLICY_SETTING.denied,
  ChatAllowManagedMcpServersOnly: POLICY_SETTING.managedOnly,
  ChatMCP: POLICY_SETTING.access,
};

/** Settings a policy sets that are arrays: their policy value is a JSON string (VS Code's policy type is `string`). */
const ARRAY_POLICY_SETTINGS: ReadonlySet<string> = new Set([POLICY_SETTING.allowed, POLICY_SETTING.denied]);

/**
 * A policy value as VS Code's configuration takes it: for an array setting a string is parsed as
 * JSON (comments allowed; a syntax error, a trailing comma or a duplicate key makes the policy
 * unset, as VS Code logs and skips it); anything else as given. `undefined`: the policy does not
 * set the setting.
 */
export function policyValueOf(setting: string, value: unknown): unknown {
  if (value === undefined || typeof value !== 'string' || !ARRAY_POLICY_SETTINGS.has(setting)) return value;
  const errors: ParseError[] = [];
  const root = parseTree(value, errors, { allowTrailingComma: false, disallowComments: false, allowEmptyContent: true });
  if (errors.length || !root || findDuplicateKeys(root).length) return undefined;
  return nodeValue(root);
}

/**
 * How a face sees the policy settings. `effective`: the value VS Code's configuration gives (the
 * policy's when it sets one, else the settings'). `policy`: the value the policy itself sets, when
 * the face can tell (the CLI reads the policy file; the editor cannot, see {@link policyValueFromEffective}).
 * `layers`: the value of each settings level (user, workspace, folder), for deny entries under
 * `allowManagedServersOnly`.
 */
export interface PolicySettingsView {
  effective: (key: string) => unknown;
  policy?: (key: string) => unknown;
  layers?: (key: string) => readonly unknown[];
}

export interface EditorPolicy {
  access: McpAccess;
  /** Undefined: no allowlist (everything not denied is allowed). */
  allow?: ServerMatcher[];
  deny: ServerMatcher[];
  managedOnly: boolean;
  /** Whose lists these are: `settings` when no policy sets them (the user's own rule, worded so). */
  origin?: { allowed: RuleOrigin; denied: RuleOrigin };
}

export type RuleOrigin = 'policy' | 'settings';

/** The effective rules from the settings, as VS Code's `AllowedMcpServersService` reads them. */
export function readEditorPolicy(view: PolicySettingsView): EditorPolicy {
  const access = effectiveMcpAccess(view.effective(POLICY_SETTING.access));
  const managedOnly = view.effective(POLICY_SETTING.managedOnly) === true;
  // Without a policy reader nobody can tell: worded as the organization's, as before.
  const originOf = (key: string): RuleOrigin => (view.policy && view.policy(key) === undefined ? 'settings' : 'policy');
  const origin = { allowed: managedOnly ? 'policy' as const : originOf(POLICY_SETTING.allowed), denied: originOf(POLICY_SETTING.denied) };
  if (!managedOnly) {
    return { access, allow: serverMatchers(view.effective(POLICY_SETTING.allowed)), deny: serverMatchers(view.effective(POLICY_SETTING.denied)) ?? [], managedOnly, origin };
  }
  const policyAllow = view.policy ? view.policy(POLICY_SETTING.allowed) : undefined;
  const deny = [
    ...(view.layers?.(POLICY_SETTING.denied) ?? []).flatMap((v) => serverMatchers(v) ?? []),
    ...(serverMatchers(view.policy?.(POLICY_SETTING.denied) ?? view.effective(POLICY_SETTING.denied)) ?? []),
  ];
  return { access, allow: serverMatchers(policyAllow) ?? [], deny: dedupe(deny), managedOnly, origin };
}

/**
 * The policy's own value of a setting when a face sees only the effective value and the user's
 * (`inspect().globalValue`; the editor's API has no policy value): a policy value overrides the
 * user's, so an effective value unlike the user's is the policy's. One equal to a user value that
 * is set cannot be told apart: it is taken as no policy value (under `allowManagedServersOnly`:
 * nothing allowed), failing closed.
 */
export function policyValueFromEffective(effective: unknown, userValue: unknown): unknown {
  if (effective === undefined || effective === null) return undefined;
  if (userValue === undefined) return effective;
  return canonicalHash(effective ?? null) === canonicalHash(userValue ?? null) ? undefined : effective;
}

function dedupe(matchers: readonly ServerMatcher[]): ServerMatcher[] {
  const seen = new Set<string>();
  return matchers.filter((m) => {
    const key = describeMatcher(m);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Whether the rules restrict anything beyond `chat.mcp.access` (which the declaration pins on its own). */
function hasServerRules(policy: EditorPolicy): boolean {
  return policy.allow !== undefined || policy.deny.length > 0 || policy.managedOnly;
}

/**
 * `sha256:` of the rules the export applied (allowlist, deny entries, managed-only), or undefined
 * when there are none; `chat.mcp.access` is pinned on its own (`mcpAccess`).
 */
export function editorPolicyDigest(policy: EditorPolicy): string | undefined {
  if (!hasServerRules(policy)) return undefined;
  return canonicalHash({ allow: policy.allow ?? null, deny: policy.deny, managedOnly: policy.managedOnly });
}

/** The identity VS Code matches: the configured name; the URL or `[command, ...args]` with the variables the export resolved (also the managed settings' check at export). */
export function identityOf(server: DeclaredServer): ServerIdentity {
  const templates = server.transport === 'stdio' ? [server.command, ...server.args] : [server.url];
  const unresolved = templates.some((t) => {
    const refs = templateRefs(t);
    return refs.inputs.length > 0 || refs.env.length > 0;
  });
  const texts = templates.map(templateText);
  return server.transport === 'stdio'
    ? { name: server.name, command: texts, ...(unresolved ? { unresolved } : {}) }
    : { name: server.name, url: texts[0], ...(unresolved ? { unresolved } : {}) };
}

export type PolicyCode = 'policy-denied' | 'policy-not-allowed' | 'policy-unresolved' | 'policy-access';

/** Why a server is blocked: the code, and the rule as the message shows it (the message escapes it). */
export interface PolicyBlock {
  code: PolicyCode;
  rule: string;
  /** The settings key of the list that decided. */
  setting: string;
  /** `settings`: the list is the user's own, not a policy's. */
  origin?: RuleOrigin;
}

/** The block, if the editor's policy blocks the server; undefined when it may be exported. */
function editorPolicyBlock(policy: EditorPolicy, server: DeclaredServer): PolicyBlock | undefined {
  if (policy.access !== 'all') return { code: 'policy-access', setting: POLICY_SETTING.access, rule: `${POLICY_SETTING.access}: "${policy.access}"` };
  return blockOf(checkServer(policy.allow, policy.deny, identityOf(server)), policy);
}

function blockOf(result: MatchResult, policy: EditorPolicy): PolicyBlock | undefined {
  const allowSetting = policy.managedOnly ? `${POLICY_SETTING.allowed} (policy only: ${POLICY_SETTING.managedOnly})` : POLICY_SETTING.allowed;
  switch (result.outcome) {
    case 'allowed': return undefined;
    case 'denied': return { code: 'policy-denied', setting: POLICY_SETTING.denied, rule: describeMatcher(result.entry!), ...(policy.origin?.denied === 'settings' ? { origin: 'settings' } : {}) };
    case 'unresolved': return { code: 'policy-unresolved', setting: policy.deny.includes(result.entry!) ? POLICY_SETTING.denied : allowSetting, rule: describeMatcher(result.entry!) };
    case 'not-allowed': {
      const count = policy.allow?.length ?? 0;
      return { code: 'policy-not-allowed', setting: allowSetting, rule: count === 0 ? `${allowSetting}: []` : `${allowSetting} (${count})`, ...(policy.origin?.allowed === 'settings' ? { origin: 'settings' } : {}) };
    }
  }
}

/**
 * The analysis with what the policy blocks taken out: each blocked server moves from `servers` to
 * `rejected` with its code, and gets a Problem on its name in its file. Collisions were decided
 * before (a blocked server still owns its name, as in VS Code, where it stays in its collection).
 * The digest of the rules goes with the analysis into the declaration.
 */
export function applyEditorPolicy(analysis: Analysis, policy: EditorPolicy): Analysis {
  const digest = editorPolicyDigest(policy);
  const withDigest = digest ? { ...analysis, policyDigest: digest } : analysis;
  if (!digest && policy.access === 'all') return withDigest;
  return withoutBlocked(withDigest, (server) => editorPolicyBlock(policy, server));
}

/**
 * `analysis` without the servers `blockOf` blocks: each is refused with a problem on its entry
 * (its code, rule and setting) and listed as rejected; an input only a blocked server used is not
 * asked for. The editor's policy and the managed settings take their shares through it.
 */
export function withoutBlocked(analysis: Analysis, blockOf: (server: DeclaredServer) => { code: ProblemCode; rule: string; setting: string; origin?: RuleOrigin } | undefined): Analysis {
  const servers: DeclaredServer[] = [];
  const problems: Problem[] = [...analysis.problems];
  const rejected = [...analysis.rejected];
  for (const server of analysis.servers) {
    const block = blockOf(server);
    if (!block) {
      servers.push(server);
      continue;
    }
    const key = analysis.serverKeys?.[server.name];
    const file = key?.file ?? server.source ?? analysis.sourcePath;
    const range = key?.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    problems.push(makeProblem(block.code, file, range, { name: server.name, rule: block.rule, setting: block.setting, ...(block.origin ? { origin: block.origin } : {}) }, { server: server.name }));
    rejected.push({ name: server.name, codes: [block.code] });
  }
  if (servers.length === analysis.servers.length) return analysis;
  const inputs = analysis.inputs.filter((i) => servers.some((s) => s.inputRefs.includes(i.id)));
  return { ...analysis, servers, problems, rejected, inputs };
}
