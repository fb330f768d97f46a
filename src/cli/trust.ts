import * as path from 'node:path';
import { setTrustMode } from '../core/app/trustMode';
import type { TrustMode } from '../core/settings/folderSettings';
import { CommandUsageError, type CommandContext } from './context';

export const TRUST_USAGE = 'trust [ask|pinned|deny]   show or set the trust mode the DSH plugin reads on this machine';

const MEANING: Record<TrustMode, string> = {
  ask: 'DSH asks in each session before a server first starts; a headless run has no one to answer, so nothing mounts there',
  pinned: 'servers whose exact pin you approved (dsh-bridge approve, or the editor) start without asking; any other pin asks',
  deny: 'nothing from any workspace is exported or mounted',
};

/**
 * `dsh-bridge trust [mode]`: the host-side trust mode (`<DSH home>/bridge/settings.json`), the
 * same file the DSH plugin reads; the editor's `dsh.trustMode` setting follows it and writes it when changed.
 */
export async function runTrust(ctx: CommandContext): Promise<number> {
  const { args, json, io } = ctx;
  if (args.length > 1) throw new CommandUsageError('"trust" takes at most one mode: ask, pinned or deny');
  const { store } = ctx.ports;
  const file = path.join(store.bridgeDir, 'settings.json');
  const before = await store.trustMode();
  if (args.length === 0) {
    if (json) io.out(JSON.stringify({ trustMode: before, file }));
    else io.out(`Trust mode on this machine: ${before} (${file})\n  ${MEANING[before]}.`);
    return 0;
  }
  const change = await setTrustMode(store, args[0]);
  if (!change.ok) throw new CommandUsageError(`unknown trust mode "${change.unknown}": use ask, pinned or deny`);
  const { mode } = change;
  if (json) {
    io.out(JSON.stringify({ trustMode: mode, previous: before, file }));
    return 0;
  }
  io.out(`${before === mode ? 'Trust mode already' : `Trust mode ${before} ->`} ${mode} (${file})\n  ${MEANING[mode]}.`);
  if (mode === 'pinned') io.out('  Approve servers with: dsh-bridge approve --workspace DIR');
  io.out('  One mode per machine: the editor\'s "dsh.trustMode" setting follows this file, and writes it when you change the setting.');
  return 0;
}
