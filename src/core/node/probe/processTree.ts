/**
 * The processes a probed stdio server starts, seen from Linux's /proc while it runs, so that the
 * probe can stop the ones that left its process group (a `detached` child makes its own session)
 * and say which are still running after the stop (a double fork that ended between two looks, a
 * process started during the stop that holds the server's stdio). Elsewhere (no /proc) it knows
 * nothing: the process group is all the probe can stop. Never throws.
 */
import { existsSync, fs, readdirSync, readFileSync, readlinkSync } from '../fsReads';

/** A process the server started that is still running after the probe stopped it. */
export interface ProcessLeft {
  pid: number;
  /** Its command line (as the caller masks it), cut to 200 characters. */
  command: string;
}

interface ProcStat {
  ppid: number;
  pgrp: number;
  /** Clock ticks after boot: with the pid, one process (a reused pid has another). */
  start: string;
  /** A zombie or dead process (kill(pid, 0) still finds a zombie). */
  ended: boolean;
}

function read(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function procStat(pid: number): ProcStat | undefined {
  const text = read(`/proc/${pid}/stat`);
  if (text === undefined) return undefined;
  // "pid (comm) state ppid pgrp session ... starttime": comm may hold spaces and parentheses.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(f[1]), pgrp: Number(f[2]), start: f[19], ended: f[0] === 'Z' || f[0] === 'X' };
}

function allPids(): number[] {
  try {
    return readdirSync('/proc').filter((e) => /^\d+$/.test(e)).map(Number);
  } catch {
    return [];
  }
}

function commandLine(pid: number): string {
  return read(`/proc/${pid}/cmdline`)?.split('\0').filter(Boolean).join(' ') || (read(`/proc/${pid}/comm`) ?? '').trim();
}

function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  } catch {
    // A kernel without CONFIG_PROC_CHILDREN (or the process just ended): every process's parent.
    return allPids().filter((p) => procStat(p)?.ppid === pid);
  }
}

export class ProcessWatch {
  /** /proc with per-process start times: Linux. */
  static readonly supported = process.platform === 'linux' && existsSync('/proc/self/stat');
  private readonly seen = new Map<number, { start: string; command: string }>();
  /** The server's stdin, stdout and stderr as /proc names them (`socket:[n]`: Node's stdio pipes are socket pairs). */
  private stdio: string[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly root: number) {}

  /** True when a process of the group runs (an unreaped zombie has ended). */
  static groupHasRunning(group: number): boolean {
    return allPids().some((pid) => {
      const stat = procStat(pid);
      return stat !== undefined && stat.pgrp === group && !stat.ended;
    });
  }

  /** Starts looking (every `intervalMs`) until {@link stopWatching}. */
  watch(intervalMs = 100): void {
    if (!ProcessWatch.supported) return;
    for (const fd of [0, 1, 2]) {
      try {
        this.stdio.push(readlinkSync(`/proc/${this.root}/fd/${fd}`));
      } catch {
        // ended already
      }
    }
    this.look();
    this.timer = setInterval(() => this.look(), intervalMs);
    this.timer.unref();
  }

  /** Remembers every current descendant of the server. */
  look(): void {
    if (!ProcessWatch.supported) return;
    const queue = [this.root];
    const visited = new Set(queue);
    while (queue.length) {
      for (const child of childrenOf(queue.pop()!)) {
        if (visited.has(child)) continue;
        visited.add(child);
        queue.push(child);
        const stat = procStat(child);
        if (stat && this.seen.get(child)?.start !== stat.start) this.seen.set(child, { start: stat.start, command: commandLine(child) });
      }
    }
  }

  stopWatching(): void {
    clearInterval(this.timer);
  }

  /** Remembered descendants still running as the same process. */
  private running(): Array<{ pid: number; pgrp: number; command: string }> {
    return [...this.seen].flatMap(([pid, { start, command }]) => {
      const stat = procStat(pid);
      return stat && stat.start === start && !stat.ended ? [{ pid, pgrp: stat.pgrp, command }] : [];
    });
  }

  /** True while a remembered descendant outside `group` runs (the group itself is signalled as a whole). */
  outsideRunning(group: number): boolean {
    return this.running().some((p) => p.pgrp !== group);
  }

  /** Signals each remembered descendant outside `group` (a group leader with its group). */
  signalOutside(group: number, signal: NodeJS.Signals): void {
    for (const p of this.running()) {
      if (p.pgrp === group) continue;
      try {
        process.kill(p.pgrp === p.pid ? -p.pid : p.pid, signal);
      } catch {
        // ended meanwhile
      }
    }
  }

  /**
   * After the stop: the remembered descendants still running, and every other process that holds
   * the server's stdio (this process excepted). `describe` masks a command line.
   */
  async leftRunning(describe: (command: string) => string): Promise<ProcessLeft[]> {
    const left = new Map(this.running().map((p) => [p.pid, p.command]));
    const stdio = this.stdio.filter((link) => /^(pipe|socket):/.test(link));
    if (stdio.length) {
      await Promise.all(allPids().filter((pid) => pid !== process.pid && pid !== this.root && !left.has(pid)).map(async (pid) => {
        const fds = await fs.readdir(`/proc/${pid}/fd`).catch(() => [] as string[]); // another user's process, or gone
        for (const fd of fds) {
          if (stdio.includes(await fs.readlink(`/proc/${pid}/fd/${fd}`).catch(() => ''))) {
            if (procStat(pid)?.ended === false) left.set(pid, commandLine(pid));
            return;
          }
        }
      }));
    }
    return [...left].sort(([a], [b]) => a - b).map(([pid, command]) => {
      const shown = describe(command);
      return { pid, command: shown.length > 200 ? `${shown.slice(0, 199)}…` : shown };
    });
  }
}
