import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, readlinkSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CommandUsageError, type CommandContext } from './context';
import {
  BUNDLE_NAME, DEFAULT_PROFILE, LSP_PACKAGES, findLauncher, inspectProfile, launcherDir, launcherNode, launcherRuleMismatches, launcherWrapper,
  lspPackagesUnloadable, missingLspPackages, nodeFitsDsh, nodeVersion, profileDir, profilesModuleFallback, sha256File, writeHmrFix, type FoundLauncher,
} from '../core/node/dshSide';
import { BUNDLE_DIR, LAUNCHER_LOCK_DIR, PLUGIN_FILE, bundleMatchesCheckout, lockMismatches, lockStamp, lockedVersions } from './dshLayout';
import { readTextFileSync } from '../core/node/reader';

/** The Node `--node auto` installs when the one running the CLI is older than DSH needs (npm's node-<os>-<arch> packages ship the binary). */
const PINNED_NODE_VERSION = '24.22.3';

export const DSH_USAGE = [
  'dsh install [--profile NAME] [--node PATH|auto] [--bundle-only]   install DSH rc.8 (pinned lockfile) and this bridge\'s bundle into a profile;',
  `                           --node auto: this Node if it fits DSH (>= 22.19), else Node ${PINNED_NODE_VERSION} from npm into the DSH home`,
].join('\n  ');

const STAMP = '.dsh-bridge-lock-stamp';

class InstallError extends Error {}

/**
 * `dsh-bridge dsh install`: makes a DSH that works, in steps that each check first and say
 * what they did: the launcher and every peer from the committed lockfile (npm ci, no install
 * scripts), a `dsh` wrapper on a Node that fits, the profile, the bridge bundle packed from
 * this checkout and added with `dsh plugin`, and the profile's hmr row turned back on.
 * Running it again changes nothing. `--bundle-only` keeps an existing rc.8 `dsh` and adds only the bundle.
 */
export async function runDsh(ctx: CommandContext): Promise<number> {
  const [sub, ...rest] = ctx.args;
  if (sub !== 'install' || rest.length) throw new CommandUsageError('"dsh" takes one subcommand: install');
  const profile = typeof ctx.options.profile === 'string' ? ctx.options.profile : DEFAULT_PROFILE;
  if (!/^[A-Za-z0-9._-]+$/.test(profile) || profile.startsWith('.')) throw new CommandUsageError(`--profile "${profile}" is not a plain folder name`);
  if (process.platform === 'win32' && ctx.options['bundle-only'] !== true) {
    throw new CommandUsageError('"dsh install" writes a POSIX sh wrapper for DSH; on Windows install DSH 0.1.0-rc.8 yourself and run "dsh-bridge dsh install --bundle-only"');
  }
  const done: Array<{ step: string; action: string }> = [];
  const say = (step: string, action: string) => {
    done.push({ step, action });
    if (!ctx.json) ctx.io.out(`${step}: ${action}`);
  };
  try {
    const launcher = ctx.options['bundle-only'] === true ? useExistingLauncher(ctx, say) : installLauncher(ctx, say);
    const env = { ...process.env, DSH_HOME: ctx.dshHome };
    ensureProfile(ctx.dshHome, profile, launcher, env, say);
    linkLspPackages(ctx.dshHome, profile, launcher, say);
    addBundle(ctx.dshHome, profile, launcher, env, say);
    const profileDirPath = profileDir(ctx.dshHome, profile);
    const state = inspectProfile(ctx.dshHome, profile, bundleMatchesCheckout);
    if (state.hmrDisabledByBundle || state.hmrEnabledByUser) {
      const fixed = await writeHmrFix(profileDirPath);
      if (typeof fixed === 'object') throw new InstallError(fixed.error);
      say('hmr row', fixed === 'written' ? `turned back on in ${path.join(profileDirPath, 'cordis.patch.yml')} (dsh-headless turns it off; the launcher needs it)` : 'already on in the profile\'s cordis.patch.yml');
    }
    else say('hmr row', 'left as the profile has it (no bundle turns it off)');
    if (ctx.json) ctx.io.out(JSON.stringify({ ok: true, dshHome: ctx.dshHome, profile, dsh: launcher.command, steps: done }));
    else {
      ctx.io.out(`\nReady. Run DSH in a workspace folder:\n  cd /path/to/project && ${launcher.command} --profile ${profile} "your task"`);
      if (launcher.source === 'bridge-install') ctx.io.out(`To type plain "dsh": export PATH="${path.dirname(launcher.command)}:$PATH"`);
      if (path.resolve(ctx.dshHome) !== path.resolve(process.env.DSH_HOME ?? path.join(os.homedir(), '.dsh'))) ctx.io.out(`This DSH home is not the default one: export DSH_HOME="${ctx.dshHome}"`);
      ctx.io.out(`Check everything with: dsh-bridge doctor --workspace /path/to/project --profile ${profile}`);
    }
    return 0;
  } catch (error) {
    if (!(error instanceof InstallError)) throw error;
    if (ctx.json) ctx.io.out(JSON.stringify({ ok: false, dshHome: ctx.dshHome, profile, steps: done, error: error.message }));
    ctx.io.err(`dsh-bridge: dsh install stopped: ${error.message}`);
    return 1;
  }
}

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; what: string }): string {
  // Output of the tool goes to stderr as it happens: a long npm ci is never silent.
  const r = spawnSync(command, args, { cwd: options.cwd, env: options.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw new InstallError(`${options.what}: ${r.error.message}`);
  if (r.status !== 0) throw new InstallError(`${options.what} failed (exit ${r.status})${r.stdout ? `: ${r.stdout.trim().split('\n').slice(-5).join(' / ')}` : ''}`);
  return r.stdout;
}

/** The npm package that ships Node for this machine, if npm has one. */
function pinnedNodePackage(): string | undefined {
  return ['linux', 'darwin'].includes(process.platform) && ['x64', 'arm64'].includes(process.arch) ? `node-${process.platform}-${process.arch}` : undefined;
}

/** The exact npm command `--node auto` runs (in `<DSH home>/launcher/node`), for a user who wants to run it themselves. */
function pinnedNodeCommand(): string {
  return `npm install --ignore-scripts --save-exact ${pinnedNodePackage() ?? 'node-<os>-<arch>'}@${PINNED_NODE_VERSION}`;
}

/** `--node auto`: Node 24 from npm into the DSH home, once; later runs find it there. */
function installPinnedNode(ctx: CommandContext, say: (step: string, action: string) => void): string {
  const pkg = pinnedNodePackage();
  if (!pkg) throw new InstallError(`npm has no Node package for ${process.platform}-${process.arch}: run again with --node /path/to/node (22.19 or newer)`);
  const dir = path.join(launcherDir(ctx.dshHome), 'node');
  const node = path.join(dir, 'node_modules', pkg, 'bin', 'node');
  if (existsSync(node) && nodeVersion(node) === `v${PINNED_NODE_VERSION}`) {
    say('Node', `${PINNED_NODE_VERSION} already in ${dir}`);
    return node;
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), '{"name":"dsh-bridge-node","private":true}\n');
  if (!ctx.json) ctx.io.out(`Node: installing ${pkg}@${PINNED_NODE_VERSION} into ${dir} (npm; the package ships the binary)...`);
  run('npm', ['install', '--ignore-scripts', '--save-exact', '--no-audit', '--no-fund', '--loglevel=error', `${pkg}@${PINNED_NODE_VERSION}`], { cwd: dir, what: `npm install of ${pkg}@${PINNED_NODE_VERSION}` });
  if (nodeVersion(node) !== `v${PINNED_NODE_VERSION}`) throw new InstallError(`${node} does not run as Node ${PINNED_NODE_VERSION} after the install`);
  say('Node', `installed ${PINNED_NODE_VERSION} (${pkg}) in ${dir}`);
  return node;
}

/**
 * --node PATH; --node auto: the Node running this CLI if it fits, else the pinned one from npm;
 * no --node: the Node running this CLI, else the one an earlier install chose. It must fit rc.8.
 */
function dshNode(ctx: CommandContext, say: (step: string, action: string) => void): string {
  const earlier = existsSync(launcherWrapper(ctx.dshHome)) ? launcherNode({ command: launcherWrapper(ctx.dshHome), source: 'bridge-install' }) : undefined;
  const auto = ctx.options.node === 'auto';
  const node = auto
    ? nodeFitsDsh(process.version) ? process.execPath : installPinnedNode(ctx, say)
    : typeof ctx.options.node === 'string'
      ? path.resolve(ctx.options.node)
      : !nodeFitsDsh(process.version) && earlier && nodeFitsDsh(nodeVersion(earlier)) ? earlier : process.execPath;
  // The wrapper is a sh script with these paths in double quotes: refuse what would break out of them.
  for (const p of [node, launcherDir(ctx.dshHome)]) {
    if (/["$`\\\n]/.test(p)) throw new InstallError(`the path ${JSON.stringify(p)} has a character the dsh wrapper cannot quote (", $, \`, \\ or a newline)`);
  }
  const version = nodeVersion(node);
  if (!nodeFitsDsh(version)) {
    throw new InstallError(`DSH rc.8 needs Node >= 22.19, and ${node} is ${version || 'not a working node'}. Run again with --node auto `
      + `to install Node ${PINNED_NODE_VERSION} from npm into ${path.join(launcherDir(ctx.dshHome), 'node')} (what it runs there: ${pinnedNodeCommand()}), `
      + 'or with --node /path/to/node (22.19 or newer)');
  }
  return node;
}

function installLauncher(ctx: CommandContext, say: (step: string, action: string) => void): FoundLauncher {
  const node = dshNode(ctx, say);
  const dir = launcherDir(ctx.dshHome);
  const nodeModules = path.join(dir, 'node_modules');
  const stamp = lockStamp();
  const current = readTextFileSync(path.join(nodeModules, STAMP), 4096)?.trim() === stamp && lockMismatches(nodeModules).length === 0;
  if (current) {
    say('DSH launcher', `0.1.0-rc.8 and its peers already installed in ${dir}`);
  } else {
    mkdirSync(dir, { recursive: true });
    for (const f of ['package.json', 'package-lock.json']) copyFileSync(path.join(LAUNCHER_LOCK_DIR(), f), path.join(dir, f));
    if (!ctx.json) ctx.io.out(`DSH launcher: installing the pinned set into ${dir} (npm, no install scripts; about 450 packages, 1-2 minutes)...`);
    // `npm install` over the committed lockfile, not `npm ci`: node-addon-require-builtin 0.1.6 lists
    // platform packages that were never published, which npm ci reports as a lockfile out of sync.
    // --legacy-peer-deps: the rc.8 peer ranges conflict and npm's resolver would search for many
    // minutes; the lockfile already decides every version, checked right after.
    run('npm', ['install', '--ignore-scripts', '--legacy-peer-deps', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, what: 'npm install of the DSH launcher' });
    const wrong = lockMismatches(nodeModules, lockedVersions(true));
    if (wrong.length) throw new InstallError(`the installed DSH does not match the lockfile: ${wrong.map((m) => `${m.name} ${m.have ?? 'missing'} (want ${m.want})`).join(', ')}`);
    writeFileSync(path.join(nodeModules, STAMP), `${stamp}\n`);
    say('DSH launcher', `installed @deepseek-ai/dsh 0.1.0-rc.8 with every peer at its pinned version in ${dir}`);
  }
  const wrapper = launcherWrapper(ctx.dshHome);
  const text = [
    '#!/bin/sh',
    '# Written by `dsh-bridge dsh install`: the rc.8 DSH launcher on a Node that fits it, with the pnpm `dsh plugin` runs.',
    `PATH="${path.join(nodeModules, '.bin')}:$PATH"`,
    'export PATH',
    `exec "${node}" "${path.join(nodeModules, '@deepseek-ai/dsh/lib/bin.js')}" "$@"`,
    '',
  ].join('\n');
  if (readTextFileSync(wrapper, 64 * 1024) === text) say('dsh command', `${wrapper} already runs it on Node ${nodeVersion(node)}`);
  else {
    mkdirSync(path.dirname(wrapper), { recursive: true });
    writeFileSync(wrapper, text, { mode: 0o755 });
    say('dsh command', `wrote ${wrapper} (Node ${nodeVersion(node)} at ${node})`);
  }
  return { command: wrapper, nodeModules, source: 'bridge-install' };
}

function useExistingLauncher(ctx: CommandContext, say: (step: string, action: string) => void): FoundLauncher {
  const found = findLauncher(ctx.dshHome);
  if (!found) throw new InstallError('no dsh found (neither installed by dsh-bridge nor on PATH); run dsh-bridge dsh install without --bundle-only');
  const version = run(found.command, ['--version'], { what: `${found.command} --version` }).trim();
  if (version !== '0.1.0-rc.8') throw new InstallError(`${found.command} is DSH ${version}; the bridge is verified with 0.1.0-rc.8: run dsh-bridge dsh install without --bundle-only`);
  if (found.nodeModules) {
    const wrong = launcherRuleMismatches(found.nodeModules);
    if (wrong.length) throw new InstallError(`${found.command} is rc.8 but its peers differ from the known-good set: ${wrong.map((m) => `${m.name} ${m.have ?? 'missing'} (want ${m.want})`).join(', ')}; run dsh-bridge dsh install without --bundle-only`);
  }
  say('DSH launcher', `using ${found.command} (0.1.0-rc.8${found.nodeModules ? ', peers match the lockfile' : ', peers not checked: its install folder is unknown'})`);
  return found;
}

function ensureProfile(dshHome: string, profile: string, launcher: FoundLauncher, env: NodeJS.ProcessEnv, say: (step: string, action: string) => void) {
  const dir = profileDir(dshHome, profile);
  if (inspectProfile(dshHome, profile, bundleMatchesCheckout).exists) {
    say('profile', `${profile} exists (${dir})`);
    return;
  }
  // The launcher writes a new profile's files the first time it composes it.
  run(launcher.command, ['--profile', profile, '--dump-config'], { env, what: `dsh --profile ${profile} --dump-config` });
  if (!inspectProfile(dshHome, profile, bundleMatchesCheckout).exists) throw new InstallError(`dsh did not create the profile ${dir}`);
  say('profile', `created ${profile} (${dir})`);
}

/**
 * The language-server packages are not in the dsh app's dependency closure, so DSH's module
 * fallback (`<DSH home>/profiles/node_modules`) has no link to them and a session cannot import
 * them. Link them there from the launcher, as DSH links its own (it keeps links it did not make).
 */
function linkLspPackages(dshHome: string, profile: string, launcher: FoundLauncher, say: (step: string, action: string) => void) {
  const fallback = profilesModuleFallback(dshHome);
  const names = Object.keys(LSP_PACKAGES).map((n) => n.replace('@deepseek-ai/', '')).join(', ');
  if (lspPackagesUnloadable(dshHome, profile).length === 0) {
    say('language servers', `${names} already reach profile ${profile}`);
    return;
  }
  if (!launcher.nodeModules || missingLspPackages(launcher.nodeModules).length) {
    say('language servers', `not available: ${launcher.command} has no ${names}; MCP servers mount, language servers do not (a DSH installed by "dsh-bridge dsh install" has them)`);
    return;
  }
  for (const name of Object.keys(LSP_PACKAGES)) {
    const link = path.join(fallback, name);
    const target = path.join(launcher.nodeModules, name);
    mkdirSync(path.dirname(link), { recursive: true });
    let stat;
    try {
      stat = lstatSync(link);
    } catch {
      stat = undefined;
    }
    if (stat && !stat.isSymbolicLink()) throw new InstallError(`${link} exists and is not a link; remove it and run dsh install again`);
    if (stat && readlinkSync(link) === target) continue;
    if (stat) unlinkSync(link);
    symlinkSync(target, link, 'junction');
  }
  const still = lspPackagesUnloadable(dshHome, profile);
  if (still.length) throw new InstallError(`after linking, profile ${profile} still cannot load ${still.join(', ')}`);
  say('language servers', `linked ${names} into ${fallback} (DSH's module fallback for every profile)`);
}

function addBundle(dshHome: string, profile: string, launcher: FoundLauncher, env: NodeJS.ProcessEnv, say: (step: string, action: string) => void) {
  const before = inspectProfile(dshHome, profile, bundleMatchesCheckout);
  if (before.bundleCurrent && before.bundles.includes(BUNDLE_NAME)) {
    say('bridge bundle', `${BUNDLE_NAME} ${before.bundleVersion} already in the profile, identical to this checkout's`);
    return;
  }
  if (!existsSync(PLUGIN_FILE())) throw new InstallError(`${PLUGIN_FILE()} is missing: run npm run build in the dsh-bridge checkout`);
  const bundles = path.join(launcherDir(dshHome), 'bundles');
  const packDir = path.join(bundles, '.pack');
  mkdirSync(packDir, { recursive: true });
  const packed = run('npm', ['pack', '--pack-destination', packDir, '--loglevel=error'], { cwd: BUNDLE_DIR(), what: `npm pack of ${BUNDLE_NAME}` }).trim().split('\n').pop()!;
  // Named by content, and earlier ones kept: pnpm keeps what it installed from an unchanged
  // file: path even when the file changed, and re-reads the profile's current spec on each add.
  const hash = sha256File(path.join(packDir, packed))!.slice(0, 12);
  const tarball = path.join(bundles, packed.replace(/\.tgz$/, `-${hash}.tgz`));
  renameSync(path.join(packDir, packed), tarball);
  run(launcher.command, ['plugin', '--profile', profile, 'add', tarball], { env, what: `dsh plugin --profile ${profile} add ${packed}` });
  const after = inspectProfile(dshHome, profile, bundleMatchesCheckout);
  if (!after.bundles.includes(BUNDLE_NAME) || !after.bundleCurrent) throw new InstallError(`dsh plugin did not leave ${BUNDLE_NAME} in the profile (bundles: ${after.bundles.join(', ') || 'none'})`);
  say('bridge bundle', `${before.bundleVersion ? 'updated' : 'added'} ${BUNDLE_NAME} ${after.bundleVersion} (${path.basename(tarball)}); profile bundles: ${after.bundles.join(', ')}`);
}


