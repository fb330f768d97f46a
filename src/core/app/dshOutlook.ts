import type { VerifyResult } from '../declaration/declarationModel';
import type { TrustMode } from '../settings/folderSettings';
import type { SkillGateResult } from '../skills/skillGate';

/**
 * What a DSH session in a folder gets from the bridge, as the DSH plugin decides it: the MCP
 * servers and language servers of a declaration that verifies (none under `deny`), and the skill
 * roots with the trust the plugin enforces. One place for the CLI's `verify` and the editor's
 * *Verify Declaration*.
 */
export interface DshOutlook {
  trustMode: TrustMode;
  /** False when nothing from the declaration mounts (it does not verify, or the mode is deny). */
  mounts: boolean;
  servers: string[];
  /** Servers the machine's DSH policy withholds (not in `servers`), with the rule. */
  policyWithheld: Array<{ serverName: string; why: string }>;
  languageServers: Array<{ id: string; extensions: string[] }>;
  /** The declaration has language servers, but an invalid entry means DSH registers none. */
  languageServersInvalid: boolean;
  skills: {
    roots: Array<{ path: string; kind: string; trust: 'trusted' | 'untrusted' | 'changed' | 'not-gated'; pin: string | null; recordedPin: string | null; skills: string[] }>;
    /** Names withheld from the session, with the root that would have won and what is offered instead. */
    withheld: Array<{ name: string; root: string; offeredFrom: string | null }>;
  };
}

export function dshOutlook(verified: VerifyResult, trustMode: TrustMode, skills: SkillGateResult, withheld: ReadonlyArray<{ serverName: string; why: string }> = []): DshOutlook {
  // A reason only the editor's settings show does not stop DSH, which cannot see them.
  const verifiesForDsh = verified.reasons.every((r) => r.editorOnly);
  const declaration = verifiesForDsh && trustMode !== 'deny' ? verified.declaration : undefined;
  const lsp = declaration?.lsp;
  return {
    trustMode,
    mounts: declaration !== undefined,
    servers: (declaration?.servers ?? []).map((s) => s.serverName).filter((n) => !withheld.some((w) => w.serverName === n)),
    policyWithheld: declaration ? withheld.map((w) => ({ serverName: w.serverName, why: w.why })) : [],
    languageServers: lsp?.registersAll ? Object.entries(lsp.servers).map(([id, s]) => ({ id, extensions: Object.keys(s.extensionToLanguage) })) : [],
    languageServersInvalid: lsp !== undefined && !lsp.registersAll,
    skills: {
      roots: skills.roots.map((r) => ({ path: r.path, kind: r.kind, trust: r.gate, pin: r.pin ?? null, recordedPin: r.recordedPin ?? null, skills: r.skills })),
      withheld: skills.shadows.map((s) => ({ name: s.name, root: s.withheldRoot, offeredFrom: s.fallback?.root.path ?? null })),
    },
  };
}
