/**
 * The DSH side's own MCP policy: an administrator's file (`/etc/dsh-bridge/policy.json`) and the
 * user's (`<DSH home>/bridge/policy.json`), with the entries of ./serverMatch. Every file only
 * narrows: a server denied by any file is withheld, and one not matched by the allowlist of any
 * file that has one is withheld. A file that cannot be trusted or read blocks every server (it
 * fails closed). The DSH plugin applies it at mount to every declaration, whoever made it.
 * Pure; the files are read by core/node/policyFiles. Never throws.
 */
import type { DeclaredServer } from '../declaration/declarationModel';
import { renderTemplate, templateText, type TemplateLookup } from '../declaration/template';
import { checkServer, describeMatcher, serverMatchers, urlSpellings, type ServerIdentity, type ServerMatcher } from './serverMatch';
import { MANAGED_KEYS, type ManagedChannel, type ManagedRules } from './managedSettings';

/** `managed`: a channel of GitHub Copilot's managed settings (./managedSettings), applied as one more layer. */
export type DshPolicyOrigin = 'admin' | 'user' | 'managed';

/** One policy file as read: its rules, or why it cannot be used (`refused`: every server is withheld). */
export interface DshPolicyLayer {
  file: string;
  origin: DshPolicyOrigin;
  /** Undefined: no allowlist in this file. */
  allow?: ServerMatcher[];
  deny: ServerMatcher[];
  /** Set when the file exists and cannot be used: why (never its content). */
  refused?: string;
  /** Origin `managed`: the channel the rules came from (`file` names the file, registry key or preferences domain). */
  channel?: ManagedChannel;
  /** Origin `managed`: `sandbox.enabled` forced on without bypass; DSH cannot sandbox a local server, so every local server is withheld. */
  sandboxForced?: boolean;
}

/** One channel of the managed settings as a layer of the policy. */
export function managedLayer(rules: ManagedRules): DshPolicyLayer {
  return {
    file: rules.location, origin: 'managed', channel: rules.channel,
    ...(rules.allow ? { allow: rules.allow } : {}), deny: rules.deny,
    ...(rules.sandboxForced ? { sandboxForced: true } : {}),
    ...(rules.refused !== undefined ? { refused: rules.refused } : {}),
  };
}

/** The layers in force on this machine (absent files are left out). */
export interface DshPolicy {
  layers: DshPolicyLayer[];
}

/** The keys of a DSH policy file (the settings' names without `chat.mcp.`). */
const DSH_POLICY_KEYS = { allowed: 'allowedServers', denied: 'deniedServers' } as const;

/**
 * A parsed DSH policy file's rules. `allowedServers` / `deniedServers` are read as VS Code reads its
 * lists (not an array: not set; bad entries dropped); anything else in the file is ignored.
 */
export function dshPolicyLayer(file: string, origin: DshPolicyOrigin, value: unknown): DshPolicyLayer {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { file, origin, deny: [], refused: 'it is not a JSON object' };
  }
  const record = value as Record<string, unknown>;
  const allow = serverMatchers(Object.hasOwn(record, DSH_POLICY_KEYS.allowed) ? record[DSH_POLICY_KEYS.allowed] : undefined);
  const deny = serverMatchers(Object.hasOwn(record, DSH_POLICY_KEYS.denied) ? record[DSH_POLICY_KEYS.denied] : undefined) ?? [];
  return { file, origin, ...(allow ? { allow } : {}), deny };
}

/** Why the DSH policy withholds a server: the file, and the rule (faces show it through their escaping seams). */
export interface DshPolicyBlock {
  /** `managed-*`: a layer of the managed settings (`managed-sandbox`: a local server under a forced sandbox). */
  code: 'policy-denied' | 'policy-not-allowed' | 'policy-unreadable' | 'managed-denied' | 'managed-not-allowed' | 'managed-unreadable' | 'managed-sandbox';
  file: string;
  origin: DshPolicyOrigin;
  rule: string;
  /** Origin `managed`: the channel. */
  channel?: ManagedChannel;
}

function blockIn(layer: DshPolicyLayer, outcome: 'denied' | 'not-allowed' | 'unreadable', rule: string): DshPolicyBlock {
  const code = layer.origin === 'managed' ? (`managed-${outcome}` as const) : (`policy-${outcome}` as const);
  return { code, file: layer.file, origin: layer.origin, rule, ...(layer.channel ? { channel: layer.channel } : {}) };
}

/**
 * The first layer that withholds the server (denies first, over every layer; then each allowlist),
 * or undefined when every layer lets it through. `identity` is the server as it would start: the
 * URL or command with its inputs and environment resolved. One still unresolved is decided by the
 * rules that can (names); it cannot start without its values anyway, and is checked again when it can.
 */
export function dshPolicyBlock(policy: DshPolicy, identity: ServerIdentity): DshPolicyBlock | undefined {
  for (const layer of policy.layers) {
    if (layer.refused) return blockIn(layer, 'unreadable', layer.refused);
  }
  // Deny wins if any spelling of the server's URL matches (urlSpellings), not only the one written.
  const spellings = identity.url !== undefined && !identity.unresolved ? urlSpellings(identity.url).map((url) => ({ ...identity, url })) : [identity];
  for (const layer of policy.layers) {
    for (const spelled of spellings) {
      const result = checkServer(undefined, layer.deny, spelled);
      if (result.outcome === 'denied') return blockIn(layer, 'denied', describeMatcher(result.entry!));
    }
  }
  // A local server under a forced sandbox: no rule can admit it (DSH runs it unsandboxed).
  const sandboxed = identity.command !== undefined ? policy.layers.find((l) => l.sandboxForced) : undefined;
  if (sandboxed) return { code: 'managed-sandbox', file: sandboxed.file, origin: sandboxed.origin, rule: `${MANAGED_KEYS.sandboxEnabled}: true`, ...(sandboxed.channel ? { channel: sandboxed.channel } : {}) };
  for (const layer of policy.layers) {
    if (!layer.allow) continue;
    const result = checkServer(layer.allow, undefined, identity);
    if (result.outcome === 'not-allowed') {
      const key = layer.origin === 'managed' ? MANAGED_KEYS.allowed : DSH_POLICY_KEYS.allowed;
      return blockIn(layer, 'not-allowed', layer.allow.length ? `${key} (${layer.allow.length}): none matches` : `${key}: []`);
    }
  }
  return undefined;
}

/** The block as one line for logs, doctor and the CLI. */
export function describeDshBlock(block: DshPolicyBlock): string {
  const who = block.origin === 'admin' ? 'the administrator\'s DSH policy' : block.origin === 'managed' ? `the managed settings (${block.channel ?? 'file'})` : 'your DSH policy';
  switch (block.code) {
    case 'managed-denied': return `denied by ${who} (${block.file}): ${block.rule}`;
    case 'managed-not-allowed': return `not in the allowlist of ${who} (${block.file}): ${block.rule}`;
    case 'managed-unreadable': return `${who} (${block.file}) cannot be used (${block.rule}), so every server is withheld`;
    case 'managed-sandbox': return `a local server, and ${who} (${block.file}) force the sandbox on (${block.rule}) without allowBypass; DSH cannot sandbox an MCP server`;
    case 'policy-denied': return `denied by ${who} (${block.file}): ${block.rule}`;
    case 'policy-not-allowed': return `not in the allowlist of ${who} (${block.file}): ${block.rule}`;
    case 'policy-unreadable': return `${who} (${block.file}) cannot be used (${block.rule}), so every server is withheld`;
  }
}

/**
 * A declared server as it would start, for the DSH policy: its name, and its URL or
 * `[command, ...args]` with input values and environment variables filled in (what VS Code
 * matches after resolution). A reference without a value leaves it `unresolved`.
 */
export function startIdentity(server: DeclaredServer, lookup: TemplateLookup): ServerIdentity {
  const templates = server.transport === 'stdio' ? [server.command, ...server.args] : [server.url];
  let unresolved = false;
  const texts = templates.map((t) => {
    const rendered = renderTemplate(t, lookup);
    if ('value' in rendered) return rendered.value;
    unresolved = true;
    return templateText(t);
  });
  const launch = server.transport === 'stdio' ? { command: texts } : { url: texts[0] };
  return { name: server.name, ...launch, ...(unresolved ? { unresolved } : {}) };
}
