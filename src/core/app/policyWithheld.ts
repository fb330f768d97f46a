/**
 * The DSH side's own policy on a declaration's servers, each on its launch as it would start (the
 * host store's input values, the environment). {@link policyBlockOf} is the one check: the session
 * plan makes it before a server starts (see plan.ts), and `dsh-bridge policy` over a declaration
 * that may not verify (see policy.ts). Never throws.
 */
import type { DeclaredServer } from '../declaration/declarationModel';
import type { TemplateLookup } from '../declaration/template';
import { dshPolicyBlock, startIdentity, type DshPolicy, type DshPolicyBlock } from '../policy/dshPolicy';
import type { Ports } from './ports';

export interface PolicyWithheld {
  name: string;
  serverName: string;
  code: DshPolicyBlock['code'];
  file: string;
  origin: DshPolicyBlock['origin'];
  /** Origin `managed`: the channel of the managed settings. */
  channel?: DshPolicyBlock['channel'];
  /** The block in words, shown through a face's escaping seam. */
  why: string;
}

/** The DSH policy in force; one that cannot be read at all fails closed (every server withheld). */
export function dshPolicyOf(ports: Pick<Ports, 'policy'>): Promise<DshPolicy> {
  return ports.policy.readDshPolicy().catch((error: unknown): DshPolicy => ({
    layers: [{ file: 'the DSH policy', origin: 'admin', deny: [], refused: error instanceof Error ? error.message : String(error) }],
  }));
}

/** Whether the policy withholds a declared server, on its launch rendered with `values`. */
export function policyBlockOf(policy: DshPolicy, server: DeclaredServer, values: TemplateLookup): DshPolicyBlock | undefined {
  return policy.layers.length ? dshPolicyBlock(policy, startIdentity(server, values)) : undefined;
}
