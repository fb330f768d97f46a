/**
 * `dsh-bridge try`: the try-it session of docs/dsh-side.md as one command. One DSH session in the
 * folder, on the profile with the bridge, against the bundle's stand-in model (its
 * `try/overlay.yml`: no network, no API key). Decides what to run, or what is missing first with
 * the command that installs it; the face runs it.
 */
import * as path from 'node:path';
import { shellQuote } from '../mcp/launchReview';
import type { Ports } from './ports';

/** The prompt of the guide's first try-it session. */
export const TRY_PROMPT = 'try the bridge';

/** Where the bundle keeps the overlay, inside its package in the profile. */
const OVERLAY = ['node_modules', 'dsh-bridge-dsh', 'try', 'overlay.yml'];

export type TryPlan =
  /** `line`: the same as a POSIX shell command line, to show. */
  | { ok: true; command: string; args: string[]; line: string; cwd: string; profile: string; overlay: string }
  /** `no-dsh`: no launcher; `no-bundle`: the profile is missing or does not load the bridge. `fix`: the command line that installs it. */
  | { ok: false; missing: 'no-dsh' | 'no-bundle'; profile: string; fix: string };

export function tryPlan(ports: Pick<Ports, 'dshInstall'>, request: { folder: string; profile?: string; prompt?: string }): TryPlan {
  const profile = request.profile ?? ports.dshInstall.defaultProfile;
  const install = ports.dshInstall.inspect(profile);
  const fix = `dsh-bridge dsh install${profile === ports.dshInstall.defaultProfile ? '' : ` --profile ${profile}`}`;
  if (!install.launcher) return { ok: false, missing: 'no-dsh', profile, fix };
  if (!install.profile.exists || !install.profile.bundles.includes('dsh-bridge-dsh') || !install.profile.bundleVersion) return { ok: false, missing: 'no-bundle', profile, fix };
  const overlay = path.join(install.profile.dir, ...OVERLAY);
  const prompt = request.prompt?.trim() ? request.prompt : TRY_PROMPT;
  const args = ['--profile', profile, '--patch', overlay, prompt];
  const line = [install.launcher.command, ...args].map((a) => shellQuote(a, { runnable: true })).join(' ');
  return { ok: true, command: install.launcher.command, args, line, cwd: request.folder, profile, overlay };
}
