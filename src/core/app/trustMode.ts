/**
 * The machine's trust mode (`<DSH home>/bridge/settings.json`), the one the DSH plugin reads: shown
 * and set by `dsh-bridge trust`; the editor's `dsh.trustMode` setting follows it.
 */
import type { HostStore } from '../node/hostStore';
import { TRUST_MODES, type TrustMode } from '../settings/folderSettings';

export type TrustModeChange = { ok: true; previous: TrustMode; mode: TrustMode } | { ok: false; unknown: string };

/** Sets the trust mode named `requested` (ask, pinned or deny); an unknown name changes nothing. */
export async function setTrustMode(store: Pick<HostStore, 'trustMode' | 'setTrustMode'>, requested: string): Promise<TrustModeChange> {
  const previous = await store.trustMode();
  const mode = TRUST_MODES.find((m) => m === requested);
  if (mode === undefined) return { ok: false, unknown: requested };
  await store.setTrustMode(mode);
  return { ok: true, previous, mode };
}
