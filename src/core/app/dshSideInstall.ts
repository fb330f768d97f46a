/**
 * The exact shell commands that install the DSH side (DSH 0.1.0-rc.8 and the dsh-bridge-dsh
 * plugin), as docs/dsh-side.md's first two steps give them, for the editor's walkthrough. Pure.
 */
import { shellQuote } from '../mcp/launchReview';

/** The repository the `dsh-bridge` command and the plugin are installed from (package.json `repository`). */
const BRIDGE_REPOSITORY = 'https://github.com/dsh-bridge/dsh-bridge.git';

export interface DshSideInstallOptions {
  /** `dsh-bridge` is on PATH: its `dsh install` is all it takes. */
  cliOnPath: boolean;
  dshHome: string;
  /** The home `dsh-bridge` uses when none is given (`$DSH_HOME`, else `~/.dsh`); another one is passed explicitly. */
  defaultDshHome: string;
}

/**
 * One command per line. Without the CLI the repository is checked out and linked first (the
 * extension ships no CLI). `--node auto` lets `dsh install` fetch a Node that fits DSH when the
 * one on PATH is older than 22.19.
 */
export function dshSideInstallCommands(options: DshSideInstallOptions): string[] {
  const home = options.dshHome === options.defaultDshHome ? '' : ` --dsh-home ${shellQuote(options.dshHome)}`;
  const install = `dsh-bridge dsh install --node auto${home}`;
  if (options.cliOnPath) return [install];
  return [`git clone ${BRIDGE_REPOSITORY} && cd dsh-bridge`, 'npm install && npm run build && npm link', install];
}
