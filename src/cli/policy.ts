import { analyzeFolder } from '../core/app/folderSources';
import { planSession } from '../core/app/plan';
import { folderAnalyzeOptions } from '../core/settings/folderSettings';
import { readEditorPolicy, POLICY_SETTING } from '../core/policy/editorPolicy';
import { describeMatcher } from '../core/policy/serverMatch';
import { ADMIN_POLICY_FILE, userPolicyFile } from '../core/node/policyFiles';
import { policyWithheld } from '../core/app/policyWithheld';
import { CommandUsageError, type CommandContext } from './context';

export const POLICY_USAGE = 'policy                     the MCP server policy in force (VS Code\'s, and the DSH side\'s files) and what it blocks in this folder';

const POLICY_CODES = new Set(['policy-denied', 'policy-not-allowed', 'policy-unresolved', 'policy-access']);

/**
 * `dsh-bridge policy`: the editor's effective rules (settings and VS Code's policy file) and what
 * they refuse at export; the DSH side's policy files, each with its rules, and what they withhold
 * from the folder's declaration at mount. Exit 0 when nothing is blocked, 1 when something is.
 */
export async function runPolicy(ctx: CommandContext): Promise<number> {
  if (ctx.args.length) throw new CommandUsageError('"policy" takes no argument');
  const { identity, ports } = ctx;
  const options = folderAnalyzeOptions(identity);
  const editor = readEditorPolicy({ effective: (k) => identity.settings(k), ...identity.policySettings });
  const analysis = await analyzeFolder(ports, options);
  const refused = analysis.rejected.filter((r) => r.codes.some((c) => POLICY_CODES.has(c)));
  const refusedWhy = refused.map((r) => ({ name: r.name, code: r.codes[0], message: analysis.problems.find((p) => p.server === r.name && p.code === r.codes[0])?.message ?? r.codes[0] }));

  // The declaration a DSH session in the folder would mount (the nearest up to the project root), verified or not: the plan's.
  const { plan, declaration } = await planSession(ports, { cwd: ctx.folder, skills: false, tools: false });
  const { policy: dsh, withheld } = await policyWithheld(ports, declaration);
  const vscodeFile = identity.vscodePolicyFile;
  if (ctx.json) {
    ctx.io.out(JSON.stringify({
      folder: ctx.folder,
      editor: {
        policyFile: vscodeFile ? { path: vscodeFile.path, present: vscodeFile.sha256 !== null } : null,
        access: editor.access, allowedServers: editor.allow ?? null, deniedServers: editor.deny, allowManagedServersOnly: editor.managedOnly,
        refused: refusedWhy,
      },
      dsh: {
        files: [ADMIN_POLICY_FILE, userPolicyFile(ctx.dshHome)],
        layers: dsh.layers.map((l) => ({ file: l.file, origin: l.origin, allowedServers: l.allow ?? null, deniedServers: l.deny, refused: l.refused ?? null })),
        declaration: declaration ? plan.declaration.path ?? null : null,
        withheld,
      },
    }));
  } else {
    const out = (line: string) => ctx.io.out(line);
    out(`Editor policy (what the export refuses):`);
    out(`  VS Code's policy file: ${vscodeFile ? `${vscodeFile.path} (${vscodeFile.sha256 ? 'present' : 'absent'})` : 'not read'}`);
    out(`  ${POLICY_SETTING.access}: ${editor.access}`);
    out(`  ${POLICY_SETTING.allowed}: ${editor.allow ? editor.allow.map((m) => describeMatcher(m)).join(', ') || '[] (blocks every server)' : 'not set'}${editor.managedOnly ? ` (the policy's own list only: ${POLICY_SETTING.managedOnly})` : ''}`);
    out(`  ${POLICY_SETTING.denied}: ${editor.deny.length ? editor.deny.map((m) => describeMatcher(m)).join(', ') : 'none'}`);
    out(refusedWhy.length ? '  Refused in this folder:' : '  Refused in this folder: none');
    for (const r of refusedWhy) out(`    ${r.name}: ${r.code}: ${r.message}`);
    out('');
    out(`DSH policy (what the DSH plugin withholds at mount; ${ADMIN_POLICY_FILE}, then ${userPolicyFile(ctx.dshHome)}):`);
    if (!dsh.layers.length) out('  no policy file');
    for (const l of dsh.layers) {
      out(`  ${l.file} (${l.origin === 'admin' ? 'administrator' : 'user, can only narrow'})${l.refused ? `: cannot be used (${l.refused}): every server is withheld` : ''}`);
      if (l.refused) continue;
      out(`    allowedServers: ${l.allow ? l.allow.map((m) => describeMatcher(m)).join(', ') || '[] (blocks every server)' : 'not set'}`);
      out(`    deniedServers: ${l.deny.length ? l.deny.map((m) => describeMatcher(m)).join(', ') : 'none'}`);
    }
    if (!declaration) out('  No declaration in this folder: nothing to withhold.');
    else out(withheld.length ? '  Withheld from this folder\'s declaration:' : '  Withheld from this folder\'s declaration: none');
    for (const w of withheld) out(`    ${w.serverName}: ${w.why}`);
  }
  return refused.length || withheld.length || dsh.layers.some((l) => l.refused) ? 1 : 0;
}
