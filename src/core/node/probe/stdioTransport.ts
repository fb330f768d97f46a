/** The stdio transport of the probe: the MCP SDK's StdioClientTransport, and a stop that ends what the server started. */
import type { ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import spawn from 'cross-spawn';
import type { McpClientConfig } from '../../mcp/dshRow';
import { dshServerEnv, type DshEnvRule } from '../../mcp/dshEnv';
import { secretMask, type SecretMask } from '../../tools/maskSecrets';
import { MAX_MESSAGE_BYTES, type Connection, type JsonRpcSession } from './jsonRpcSession';
import { describe, ProbeFailure } from './probeFailure';
import { ProcessWatch, type ProcessLeft } from './processTree';

/** What starting a stdio server takes besides its row. */
export interface StdioOptions {
  /** The environment DSH runs in: the stdio child inherits it scrubbed by `envRule`. */
  parentEnv: Readonly<Record<string, string | undefined>>;
  envRule?: DshEnvRule;
  /** Told the stdio server's process id once it runs (tests check that it is stopped). */
  onSpawn?: (pid: number) => void;
  /** Masks the commands of what it left running. */
  mask?: SecretMask;
}

/** Between stdin closed, SIGTERM and SIGKILL (the SDK's stop sequence). */
const STOP_GRACE_MS = 2000;

/**
 * Stdio servers not yet stopped, each with what kills it and what it started: called when this
 * process exits first (the CLI interrupted: a server in its own group no longer gets the
 * terminal's Ctrl+C). Synchronous, as an exit handler must be.
 */
const unstopped = new Set<() => void>();
let killOnExit = false;

function killUnstopped(): void {
  for (const kill of unstopped) kill();
}

/** True while a process of the group runs (on Linux an unreaped zombie does not count). */
function groupRuns(group: number): boolean {
  try {
    process.kill(-group, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !ProcessWatch.supported || ProcessWatch.groupHasRunning(group);
}

/** Resolves once `done()` or after `ms` (its timer keeps the process alive: a CLI waits for the stop). */
function until(done: () => boolean, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const deadline = Date.now() + ms;
    const check = () => (done() || Date.now() >= deadline ? resolve() : setTimeout(check, 50));
    check();
  });
}

/**
 * The SDK's StdioClientTransport: its spawn, its inherited environment, its framing, its stop
 * sequence; the server in its own process group (POSIX), which the stop ends whole.
 */
export function startStdio(row: Extract<McpClientConfig, { transport: 'stdio' }>, rpc: JsonRpcSession, options: StdioOptions, onStderr: (text: string) => void): Promise<Connection> {
  const env = { ...sdkDefaultEnvironment(), ...dshServerEnv(options.parentEnv, row.env, options.envRule) };
  const ownGroup = process.platform !== 'win32';
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(row.command, row.args, {
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        windowsHide: process.platform === 'win32',
        // POSIX: a new session, so its process group holds what it starts (unless that leaves it).
        detached: ownGroup,
        // '' = DSH's own cwd (contract section 1); the probe's process stands in for it.
        cwd: row.cwd === '' ? undefined : row.cwd,
      });
    } catch (error) {
      reject(new ProbeFailure('did-not-start', `could not be started (${describe(error)})`));
      return;
    }
    let closed = false;
    // The unfinished line, in pieces (no copy per chunk), at most MAX_MESSAGE_BYTES.
    let pieces: Buffer[] = [];
    let pending = 0;
    let exit: string | undefined;
    child.once('close', (code, signal) => {
      closed = true;
      exit = signal ? `signal ${signal}` : `exit code ${code}`;
      rpc.fail(rpc.garbage
        ? new ProbeFailure('not-mcp', `it answered with something that is not MCP (${rpc.garbage}) and stopped (${exit})`)
        : new ProbeFailure('did-not-start', `stopped before answering (${exit})`));
    });
    child.once('error', (error) => reject(new ProbeFailure('did-not-start', `could not be started (${describe(error)})`)));
    child.stdin?.on('error', () => undefined); // a server gone mid-write: its close says so
    const stderr = new StringDecoder('utf8');
    child.stderr?.on('data', (chunk: Buffer) => onStderr(stderr.write(chunk)));
    child.stdout?.on('data', (chunk: Buffer) => {
      let from = 0;
      for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, from)) {
        const tail = chunk.subarray(from, end);
        const line = pending ? Buffer.concat([...pieces, tail]) : tail;
        pieces = [];
        pending = 0;
        from = end + 1;
        rpc.receive(line.toString('utf8').replace(/\r$/, ''));
      }
      if (from < chunk.length) {
        pieces.push(chunk.subarray(from));
        pending += chunk.length - from;
      }
      if (pending > MAX_MESSAGE_BYTES) {
        pieces = [];
        pending = 0;
        rpc.overflow('a line');
      }
    });
    rpc.send = (message) => new Promise((sent) => {
      if (!child.stdin || exit) throw new Error('Not connected');
      if (child.stdin.write(`${JSON.stringify(message)}\n`)) sent();
      else child.stdin.once('drain', sent);
    });
    child.once('spawn', () => {
      const pid = child.pid!;
      options.onSpawn?.(pid);
      const watch = new ProcessWatch(pid);
      watch.watch();
      const kill = () => {
        watch.look();
        try { if (ownGroup) process.kill(-pid, 'SIGKILL'); else child.kill('SIGKILL'); } catch { /* gone */ }
        watch.signalOutside(pid, 'SIGKILL');
      };
      unstopped.add(kill);
      if (!killOnExit) process.once('exit', killUnstopped);
      killOnExit = true;
      resolve({ stop: () => stopTree(child, () => closed, ownGroup, watch, options.mask ?? secretMask([])).finally(() => unstopped.delete(kill)) });
    });
  });
}

/**
 * The SDK's sequence (stdin closed, then SIGTERM, then SIGKILL, two seconds apart) for the server's
 * whole process group and for what it started outside the group while the probe watched (Linux);
 * a group whose leader ended at stdin's close is still signalled if anything in it runs. On
 * Windows (no process groups) the server's process only, as the SDK stops it.
 */
async function stopTree(child: ChildProcess, closed: () => boolean, ownGroup: boolean, watch: ProcessWatch, mask: SecretMask): Promise<ProcessLeft[]> {
  const pid = child.pid!;
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const stopped = () => exited() && (!ownGroup || !groupRuns(pid)) && !watch.outsideRunning(pid);
  const signal = (name: NodeJS.Signals) => {
    if (ownGroup) {
      try { process.kill(-pid, name); } catch { /* the group has ended */ }
    } else if (!exited()) {
      child.kill(name);
    }
    watch.signalOutside(pid, name);
  };
  watch.look(); // what it started, in case it ends as soon as its stdin closes
  try { child.stdin?.end(); } catch { /* gone */ }
  await until(exited, STOP_GRACE_MS);
  watch.look(); // the last look at what it started, before anything is signalled
  watch.stopWatching();
  if (!stopped()) {
    signal('SIGTERM');
    await until(stopped, STOP_GRACE_MS);
  }
  if (!stopped()) {
    signal('SIGKILL');
    await until(stopped, 1000);
  }
  // Its last output read; a process that escaped with its pipes would keep them (and this process) open.
  await until(closed, 200);
  child.stdout?.destroy();
  child.stderr?.destroy();
  child.stdin?.destroy();
  return watch.leftRunning((command) => mask.text(command));
}

/** The variables the SDK's stdio transport always passes on from its own process (`getDefaultEnvironment`). */
function sdkDefaultEnvironment(): Record<string, string> {
  const names = process.platform === 'win32'
    ? ['APPDATA', 'HOMEDRIVE', 'HOMEPATH', 'LOCALAPPDATA', 'PATH', 'PROCESSOR_ARCHITECTURE', 'SYSTEMDRIVE', 'SYSTEMROOT', 'TEMP', 'USERNAME', 'USERPROFILE', 'PROGRAMFILES']
    : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];
  const env: Record<string, string> = {};
  for (const name of names) {
    const value = process.env[name];
    if (value !== undefined && !value.startsWith('()')) env[name] = value;
  }
  return env;
}
