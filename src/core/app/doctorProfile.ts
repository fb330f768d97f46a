/**
 * Which DSH profile the editor's doctor diagnoses: the one that loads the bridge, a choice only
 * when several do, and the profile `dsh-bridge dsh install` sets up when none does yet. The
 * reason is said beside the report, so the user sees which profile it is and why.
 */
import type { Ports } from './ports';

export type DoctorProfiles =
  /** The only profile that loads the bridge. */
  | { kind: 'only'; profile: string }
  /** No profile loads the bridge yet: the default one, which the install sets up. */
  | { kind: 'none'; profile: string }
  /** Several load it: the face asks which. */
  | { kind: 'several'; profiles: string[] };

export function doctorProfiles(ports: Pick<Ports, 'dshInstall'>): DoctorProfiles {
  const profiles = ports.dshInstall.bridgeProfiles();
  if (profiles.length === 0) return { kind: 'none', profile: ports.dshInstall.defaultProfile };
  if (profiles.length === 1) return { kind: 'only', profile: profiles[0] };
  return { kind: 'several', profiles };
}
