/**
 * What the DSH side's own policy withholds from a declaration, as the DSH plugin decides it at
 * mount: each server on its launch as it would start (the host store's input values, the
 * environment). For `dsh-bridge policy`, `verify`'s outlook and the editor's *Verify Declaration*.
 * Never throws.
 */
import type { Declaration } from '../declaration/declarationModel';
import { HostStore } from '../node/hostStore';
import { readDshPolicy } from '../node/policyFiles';
import { describeDshBlock, dshPolicyBlock, startIdentity, type DshPolicy, type DshPolicyBlock } from '../policy/dshPolicy';

export interface PolicyWithheld {
  name: string;
  serverName: string;
  code: DshPolicyBlock['code'];
  file: string;
  origin: DshPolicyBlock['origin'];
  /** The block in words, shown through a face's escaping seam. */
  why: string;
}

export async function policyWithheld(declaration: Declaration | undefined, dshHome: string, env: Readonly<Record<string, string | undefined>> = process.env): Promise<{ policy: DshPolicy; withheld: PolicyWithheld[] }> {
  const policy = await readDshPolicy(dshHome, env);
  if (!declaration || !policy.layers.length) return { policy, withheld: [] };
  const inputs: ReadonlyMap<string, string> = (await new HostStore(dshHome).readFolder(declaration.folder).catch(() => undefined))?.inputs ?? new Map();
  const lookup = { input: (id: string) => inputs.get(id), env: (name: string) => (Object.hasOwn(env, name) ? env[name] : undefined) };
  const withheld = declaration.servers.flatMap((server) => {
    const block = dshPolicyBlock(policy, startIdentity(server, lookup));
    return block ? [{ name: server.name, serverName: server.serverName, code: block.code, file: block.file, origin: block.origin, why: describeDshBlock(block) }] : [];
  });
  return { policy, withheld };
}
