/**
 * GitHub Copilot's managed settings at export: a server any channel blocks is not exported. It
 * moves from `servers` to `rejected` with its code, and gets a Problem on its name that names the
 * channel and the rule (`policy-denied`, `policy-not-allowed`, `policy-unresolved`, as the editor's
 * own policy words them; `policy-sandbox` for a local server under a forced sandbox;
 * `policy-managed-unreadable` when a channel cannot be used). The DSH plugin applies the same
 * channels at mount (./dshPolicy), so a declaration made before them is held to them too.
 * Pure; never throws.
 */
import { canonicalHash } from '../json/canonicalJson';
import type { ProblemCode } from '../problems/problems';
import type { Analysis } from '../mcp/analysis';
import type { DeclaredServer } from '../declaration/declarationModel';
import { checkServer, describeMatcher } from './serverMatch';
import { identityOf, withoutBlocked } from './editorPolicy';
import { MANAGED_KEYS, type ManagedRules } from './managedSettings';

interface ManagedBlock {
  code: Extract<ProblemCode, 'policy-denied' | 'policy-not-allowed' | 'policy-unresolved' | 'policy-sandbox' | 'policy-managed-unreadable'>;
  /** The channel and the list, as the message shows it: `managed settings (file /etc/...): deniedMcpServers`. */
  setting: string;
  rule: string;
}

/** The channel as the messages name it. */
export function channelWords(rules: Pick<ManagedRules, 'channel' | 'location'>): string {
  return `managed settings (${rules.channel} ${rules.location})`;
}

/** The first block of any channel (every channel's faults, then denies, the sandbox, each allowlist), or undefined. */
export function managedBlock(channels: readonly ManagedRules[], server: DeclaredServer): ManagedBlock | undefined {
  const refused = channels.find((c) => c.refused !== undefined);
  if (refused) return { code: 'policy-managed-unreadable', setting: channelWords(refused), rule: refused.refused! };
  const identity = identityOf(server);
  for (const channel of channels) {
    const result = checkServer(undefined, channel.deny, identity);
    if (result.outcome === 'denied') return { code: 'policy-denied', setting: `${channelWords(channel)}: ${MANAGED_KEYS.denied}`, rule: describeMatcher(result.entry!) };
    if (result.outcome === 'unresolved') return { code: 'policy-unresolved', setting: `${channelWords(channel)}: ${MANAGED_KEYS.denied}`, rule: describeMatcher(result.entry!) };
  }
  const sandboxed = server.transport === 'stdio' ? channels.find((c) => c.sandboxForced) : undefined;
  if (sandboxed) return { code: 'policy-sandbox', setting: channelWords(sandboxed), rule: `${MANAGED_KEYS.sandboxEnabled}: true` };
  for (const channel of channels) {
    if (!channel.allow) continue;
    const result = checkServer(channel.allow, undefined, identity);
    const setting = `${channelWords(channel)}: ${MANAGED_KEYS.allowed}`;
    if (result.outcome === 'unresolved') return { code: 'policy-unresolved', setting, rule: describeMatcher(result.entry!) };
    if (result.outcome === 'not-allowed') return { code: 'policy-not-allowed', setting, rule: channel.allow.length ? `${setting} (${channel.allow.length})` : `${setting}: []` };
  }
  return undefined;
}

/**
 * `sha256:` of the MCP rules of every channel (what they decide, not where they were read: the same
 * rules moved to another channel decide the same), or undefined when no channel sets any. The
 * declaration records it (`policy.managed`), so a change of the managed settings makes it stale.
 */
export function managedRulesDigest(channels: readonly ManagedRules[]): string | undefined {
  if (!channels.length) return undefined;
  return canonicalHash(channels.map((c) => ({
    channel: c.channel, allow: c.allow ?? null, deny: c.deny, managedOnly: c.managedOnly, sandboxForced: c.sandboxForced, refused: c.refused ?? null,
  })));
}

/** The analysis with what the managed settings block taken out (after the editor's own policy, which took its share), and the digest of their rules. */
export function applyManagedPolicy(analysis: Analysis, channels: readonly ManagedRules[]): Analysis {
  const digest = managedRulesDigest(channels);
  if (!digest) return analysis;
  return { ...withoutBlocked(analysis, (server) => managedBlock(channels, server)), managedDigest: digest };
}
