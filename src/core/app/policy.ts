/**
 * `dsh-bridge policy`: the MCP server policy in force for a folder, on both ends. The editor's
 * effective rules (its settings and VS Code's policy file) and what they refuse at export; the DSH
 * side's policy files, with their rules, and what they withhold from the declaration a session in
 * the folder would mount, as the session plan read them (verified or not). Never throws.
 */
import type { ServerMatcher } from '../policy/serverMatch';
import { describeMatcher } from '../policy/serverMatch';
import { POLICY_SETTING, readEditorPolicy, type EditorPolicy, type PolicyCode } from '../policy/editorPolicy';
import type { DshPolicy, DshPolicyLayer } from '../policy/dshPolicy';
import { describeDshBlock } from '../policy/dshPolicy';
import type { FolderIdentity } from '../settings/folderSettings';
import type { Analysis } from '../mcp/analysis';
import { analyzeWorkspaceFolder } from './folderSources';
import { analyzeUserFiles, type UserFiles } from './userExport';
import { userDeclarationFolder } from './userSources';
import { planSession, type PlannedSession } from './plan';
import { dshPolicyOf, policyBlockOf, type PolicyWithheld } from './policyWithheld';
import type { Ports } from './ports';

/** Every editor policy code (a new one is a type error here until it is listed). */
const POLICY_CODES: ReadonlySet<string> = new Set([...Object.keys({
  'policy-denied': true, 'policy-not-allowed': true, 'policy-unresolved': true, 'policy-access': true,
} satisfies Record<PolicyCode, true>), 'policy-sandbox', 'policy-managed-unreadable']);

/** Rules with each matcher also in words (`undefined` allow: no allowlist). */
export interface ShownRules {
  allow?: ServerMatcher[];
  deny: ServerMatcher[];
  allowShown?: string[];
  denyShown: string[];
}

function shown(rules: { allow?: ServerMatcher[]; deny: ServerMatcher[] }): ShownRules {
  return { allow: rules.allow, deny: rules.deny, ...(rules.allow ? { allowShown: rules.allow.map(describeMatcher) } : {}), denyShown: rules.deny.map(describeMatcher) };
}

export interface PolicyReport {
  editor: ShownRules & Pick<EditorPolicy, 'access' | 'managedOnly'> & {
    /** The settings' names, as the report labels them. */
    settings: typeof POLICY_SETTING;
    policyFile?: FolderIdentity['vscodePolicyFile'];
    /** The servers the export refuses under the editor's policy, with the first reason worded. */
    refused: Array<{ name: string; code: string; message: string }>;
  };
  dsh: {
    layers: Array<Pick<DshPolicyLayer, 'file' | 'origin' | 'refused' | 'channel' | 'sandboxForced'> & ShownRules>;
    /** The declaration a session in the folder would mount (the nearest up to the project root); undefined: none. */
    declaration?: string;
    withheld: PolicyWithheld[];
  };
  /** Whether anything is blocked: a refused server, a withheld one, or a DSH policy file that cannot be used. */
  blocks: boolean;
}

type PolicyPorts = Pick<Ports, 'dshHome' | 'store' | 'files' | 'env' | 'home' | 'cwd' | 'mcp' | 'policy'>;

export async function policyReport(ports: PolicyPorts, identity: FolderIdentity): Promise<PolicyReport> {
  const analysis = await analyzeWorkspaceFolder(ports, identity);
  const planned = await planSession(ports, { cwd: identity.folder, skills: false, tools: false });
  return policyReportOf(ports, identity, analysis, planned);
}

/**
 * The same report for the user's own servers (`dsh-bridge policy --user`): the user's files as
 * the export reads them, and the user declaration as the plugin mounts it.
 */
export async function userPolicyReport(ports: PolicyPorts, identity: FolderIdentity, files: UserFiles): Promise<PolicyReport> {
  const analysis = await analyzeUserFiles(ports, identity, files);
  const planned = await planSession(ports, { cwd: userDeclarationFolder(ports.dshHome), skills: false, tools: false });
  return policyReportOf(ports, identity, analysis, planned);
}

/** What the editor's rules refuse of `analysis`, and what the DSH policy withholds from the declaration `planned` found. */
async function policyReportOf(ports: PolicyPorts, identity: FolderIdentity, analysis: Analysis, planned: PlannedSession): Promise<PolicyReport> {
  const editor = readEditorPolicy({ effective: (k) => identity.settings(k), ...identity.policySettings });
  const refused = analysis.rejected.filter((r) => r.codes.some((c) => POLICY_CODES.has(c)))
    .map((r) => ({ name: r.name, code: r.codes[0], message: analysis.problems.find((p) => p.server === r.name && p.code === r.codes[0])?.message ?? r.codes[0] }));
  // The plan's own read; read here only when the plan failed before it read the policy.
  const policy = planned.dshPolicy ?? await dshPolicyOf(ports);
  const { layers } = policy;
  const withheld = withheldByPolicy(planned, policy);
  return {
    editor: { ...shown(editor), access: editor.access, managedOnly: editor.managedOnly, settings: POLICY_SETTING, ...(identity.vscodePolicyFile ? { policyFile: identity.vscodePolicyFile } : {}), refused },
    dsh: {
      layers: layers.map((l) => ({
        file: l.file, origin: l.origin, ...(l.channel ? { channel: l.channel } : {}), ...(l.sandboxForced ? { sandboxForced: true } : {}), ...(l.refused ? { refused: l.refused } : {}), ...shown(l),
      })),
      ...(planned.declaration && planned.plan.declaration.path !== undefined ? { declaration: planned.plan.declaration.path } : {}),
      withheld,
    },
    blocks: refused.length > 0 || withheld.length > 0 || layers.some((l) => l.refused),
  };
}

/** The declaration's servers the DSH policy the plan read withholds, each on its launch rendered with the plan's values. */
function withheldByPolicy(planned: PlannedSession, policy: DshPolicy): PolicyWithheld[] {
  if (!planned.declaration || !policy.layers.length) return [];
  return planned.declaration.servers.flatMap((server) => {
    const block = policyBlockOf(policy, server, planned.values);
    return block ? [{ name: server.name, serverName: server.serverName, code: block.code, file: block.file, origin: block.origin, ...(block.channel ? { channel: block.channel } : {}), why: describeDshBlock(block) }] : [];
  });
}
