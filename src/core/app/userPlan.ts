/**
 * The user's own servers in a session: the user declaration (core/app/userExport) planned as a
 * folder's is, by {@link planSession} (verified, the trust mode, approvals and inputs of its own
 * folder in the host store, the DSH policy), beside the workspace's. A name the workspace's
 * declaration has (exported or refused, compared ignoring case, as VS Code compares them) or a
 * DSH name one of its servers takes belongs to the workspace: the user's server of that name is
 * withheld, `shadowed-by-workspace`, as VS Code disables the lower-priority one (its user
 * configuration sorts after every workspace file). The workspace's plan is left as it is.
 */
import { planSession, type PlannedSession, type PlanRequest, type ServerPlan } from './plan';
import { reason } from './planReasons';
import { userDeclarationFolder } from './userSources';
import type { Ports } from './ports';

export interface UserServersPlanned {
  /** The user declaration's own plan (its folder is the host store's user folder). */
  planned: PlannedSession;
  /** Its servers as the session gets them: the plan's, with the workspace's names withheld. */
  servers: ServerPlan[];
}

type PlanPorts = Parameters<typeof planSession>[0] & Pick<Ports, 'dshHome'>;

/**
 * The user declaration's plan for a session whose workspace plan is `workspace`. The request's
 * `cwd` is the session folder; the user declaration is looked for in its own folder only.
 * Never throws (planSession does not).
 */
export async function planUserServers(ports: PlanPorts, request: Omit<PlanRequest, 'cwd' | 'skills'>, workspace: PlannedSession): Promise<UserServersPlanned> {
  const planned = await planSession(ports, { ...request, cwd: userDeclarationFolder(ports.dshHome), skills: false, policyWithoutDeclaration: false });
  return { planned, servers: besideWorkspace(planned.plan.servers, workspace) };
}

/** The user's servers with every name the workspace owns withheld (a pure decision, for the plan and its tests). */
export function besideWorkspace(userServers: readonly ServerPlan[], workspace: Pick<PlannedSession, 'declaration'>): ServerPlan[] {
  const declaration = workspace.declaration;
  const owners = new Map<string, string>();
  const serverNames = new Map<string, string>();
  for (const s of declaration?.servers ?? []) {
    if (!owners.has(s.name.toLowerCase())) owners.set(s.name.toLowerCase(), s.name);
    serverNames.set(s.serverName, s.name);
  }
  // A refused workspace entry still owns its name (VS Code disables a later one whether or not the first can run).
  for (const r of declaration?.rejected ?? []) if (!owners.has(r.name.toLowerCase())) owners.set(r.name.toLowerCase(), r.name);
  return userServers.map((server) => {
    const owner = owners.get(server.name.toLowerCase()) ?? serverNames.get(server.serverName);
    return owner === undefined ? server : { ...server, outcome: 'withheld', reason: reason('shadowed-by-workspace', { owner }) };
  });
}

/**
 * The user declaration as the plugin mounts it: its plan with the workspace's names withheld,
 * and its declared servers without them (a withheld name is not wanted in the session, so the
 * workspace's server of that name is the one that runs).
 */
export function mountableUserPlan(user: UserServersPlanned): PlannedSession {
  const taken = new Set(user.servers.filter((s) => s.reason.code === 'shadowed-by-workspace').map((s) => s.serverName));
  const { declaration } = user.planned;
  return {
    ...user.planned,
    plan: { ...user.planned.plan, servers: user.servers },
    ...(declaration ? { declaration: { ...declaration, servers: declaration.servers.filter((s) => !taken.has(s.serverName)) } } : {}),
  };
}
