import { policyReport, userPolicyReport } from '../core/app/policy';
import { chosenUserFiles } from './userExport';
import { ADMIN_POLICY_FILE, userPolicyFile } from '../core/node/policyFiles';
import { managedSettingsFile } from '../core/node/managedSettingsFiles';
import { CommandUsageError, type CommandContext } from './context';

export const POLICY_USAGE = 'policy [--user]            the MCP server policy in force (VS Code\'s, and the DSH side\'s files) and what it blocks in this folder (--user: of your own servers)';

/**
 * `dsh-bridge policy`: the editor's effective rules (settings and VS Code's policy file) and what
 * they refuse at export; the DSH side's policy files, each with its rules, and what they withhold
 * from the folder's declaration at mount. Exit 0 when nothing is blocked, 1 when something is.
 */
export async function runPolicy(ctx: CommandContext): Promise<number> {
  if (ctx.args.length) throw new CommandUsageError('"policy" takes no argument');
  const user = ctx.options.user === true;
  const files = user ? await chosenUserFiles(ctx) : undefined;
  const { editor, dsh, blocks } = files ? await userPolicyReport(ctx.ports, ctx.identity, files) : await policyReport(ctx.ports, ctx.identity);
  // The words for what is judged: the folder's servers, or the user's own.
  const here = user ? 'of your own servers' : 'in this folder';
  const whose = user ? 'the user declaration' : 'this folder\'s declaration';
  const vscodeFile = editor.policyFile;
  const setting = editor.settings;
  const refusedWhy = editor.refused;
  const { withheld, declaration } = dsh;
  if (ctx.json) {
    ctx.io.out(JSON.stringify({
      folder: ctx.folder,
      ...(files ? { user: true, files } : {}),
      editor: {
        policyFile: vscodeFile ? { path: vscodeFile.path, present: vscodeFile.sha256 !== null } : null,
        access: editor.access, allowedServers: editor.allow ?? null, deniedServers: editor.deny, allowManagedServersOnly: editor.managedOnly,
        refused: refusedWhy,
      },
      dsh: {
        files: [ADMIN_POLICY_FILE, userPolicyFile(ctx.dshHome), managedSettingsFile()],
        layers: dsh.layers.map((l) => ({
          file: l.file, origin: l.origin, ...(l.channel ? { channel: l.channel, sandboxForced: l.sandboxForced === true } : {}), allowedServers: l.allow ?? null, deniedServers: l.deny, refused: l.refused ?? null,
        })),
        declaration: declaration ?? null,
        withheld,
      },
    }));
  } else {
    const out = (line: string) => ctx.io.out(line);
    out(`Editor policy (what the export refuses):`);
    out(`  VS Code's policy file: ${vscodeFile ? `${vscodeFile.path} (${vscodeFile.sha256 ? 'present' : 'absent'})` : 'not read'}`);
    out(`  ${setting.access}: ${editor.access}`);
    out(`  ${setting.allowed}: ${editor.allowShown ? editor.allowShown.join(', ') || '[] (blocks every server)' : 'not set'}${editor.managedOnly ? ` (the policy's own list only: ${setting.managedOnly})` : ''}`);
    out(`  ${setting.denied}: ${editor.denyShown.length ? editor.denyShown.join(', ') : 'none'}`);
    out(refusedWhy.length ? `  Refused ${here}:` : `  Refused ${here}: none`);
    for (const r of refusedWhy) out(`    ${r.name}: ${r.code}: ${r.message}`);
    out('');
    out(`DSH policy (what the DSH plugin withholds at mount; ${ADMIN_POLICY_FILE}, then ${userPolicyFile(ctx.dshHome)}, then each channel of the managed settings):`);
    if (!dsh.layers.length) out('  no policy file');
    for (const l of dsh.layers) {
      const owner = l.origin === 'admin' ? 'administrator' : l.origin === 'managed' ? `GitHub Copilot managed settings, channel ${l.channel ?? 'file'}; also refused at export` : 'user, can only narrow';
      out(`  ${l.file} (${owner})${l.refused ? `: cannot be used (${l.refused}): every server is withheld` : ''}`);
      if (l.refused) continue;
      const [allowKey, denyKey] = l.origin === 'managed' ? ['allowedMcpServers', 'deniedMcpServers'] : ['allowedServers', 'deniedServers'];
      out(`    ${allowKey}: ${l.allowShown ? l.allowShown.join(', ') || '[] (blocks every server)' : 'not set'}`);
      out(`    ${denyKey}: ${l.denyShown.length ? l.denyShown.join(', ') : 'none'}`);
      if (l.sandboxForced) out('    sandbox.enabled: true without allowBypass (every local server is withheld: DSH cannot sandbox one)');
    }
    if (!declaration) out(user ? '  No user declaration (dsh-bridge export --user writes it): nothing to withhold.' : '  No declaration in this folder: nothing to withhold.');
    else out(withheld.length ? `  Withheld from ${whose}:` : `  Withheld from ${whose}: none`);
    for (const w of withheld) out(`    ${w.serverName}: ${w.why}`);
  }
  return blocks ? 1 : 0;
}
