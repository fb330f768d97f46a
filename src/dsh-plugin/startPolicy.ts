import type { Reconnect } from '../core/declaration/declarationModel';

/** How long the first request of a step waits for servers starting in it, unless configured. */
export const DEFAULT_START_WAIT_MS = 3000;

/**
 * How long a headless run's request waits for its servers unless configured: the MCP SDK's
 * default request timeout, which ends a start whose server never answers `initialize`.
 */
export const HEADLESS_START_WAIT_MS = 60000;

/** The plugin's `startWaitMs` config as a usable number (a bad value falls back to the default). */
export function startWaitMs(value: unknown, fallback = DEFAULT_START_WAIT_MS): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 2147483647 ? value : fallback;
}

/**
 * When a server whose start failed `failures` times in a row (same pin, same declaration) may be
 * started again, by the row's `reconnect` settings: `initialDelayMs` doubling up to `maxDelayMs`,
 * at most `maxAttempts` retries; `enabled: false` never retries. `undefined` = not again in this
 * session until the declaration or the pin changes. The retry happens at the first model step
 * after that time (no timer runs in between).
 */
export function retryAt(reconnect: Reconnect, failures: number, now: number): number | undefined {
  if (!reconnect.enabled || failures > reconnect.maxAttempts) return undefined;
  const delay = Math.min(reconnect.initialDelayMs * 2 ** Math.min(failures - 1, 30), reconnect.maxDelayMs);
  return now + delay;
}

/**
 * Resolves when `work` settles, after `ms`, or at once when `signal` aborts, whichever comes first,
 * and leaves nothing behind: the timer is cleared and the listener removed then (a timer left to run
 * would keep the turn's signal, and through it the session, reachable for up to `ms` after the
 * session ended). The timer never holds the process open.
 */
export function waitAtMost(work: Promise<unknown>, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    timer.unref?.();
    signal?.addEventListener('abort', done, { once: true });
    work.then(done, done);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** Server starts at a time in one DSH process unless configured: twice the CPUs, at least 4. */
export function defaultStartConcurrency(cpus: number): number {
  return Math.max(4, 2 * cpus);
}

/** The plugin's `startConcurrency` config as a usable number (a bad value falls back to the default). */
export function startConcurrency(value: unknown, cpus: number): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 1024 ? value : defaultStartConcurrency(cpus);
}

/** How long one start holds its slot at most: a server slow to answer `initialize` stops holding back the others then. */
const START_SLOT_MS = 1000;

/**
 * Server starts running at once in this DSH process: at most `limit`, each holding its slot until
 * it is up or failed, or `slotMs` at most. A stdio start spawns a process from the host's event
 * loop, and Node's spawn returns only once the child has exec'd: when dozens of sessions start
 * servers together, each spawn waits for the scheduler among every process still starting, and the
 * host stops answering for seconds (so no session's request, not even one with nothing to start,
 * keeps to `startWaitMs`). A slot given back after `slotMs` keeps a slow server (an `npx` download, a
 * late `initialize`) from delaying the servers queued behind it.
 */
export class StartSlots {
  private running = 0;
  private readonly queue: Array<() => void> = [];

  constructor(private readonly limit: number, private readonly slotMs = START_SLOT_MS) {}

  /** Starts waiting for a slot now. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Takes a slot (queued until one is free) and returns its release, which frees it for the next
   * start; it also frees itself after `slotMs`, and a second call does nothing. When `signal`
   * aborts while queued, the start leaves the queue without a slot (undefined).
   */
  async enter(signal?: AbortSignal): Promise<(() => void) | undefined> {
    if (signal?.aborted) return undefined;
    if (this.running < this.limit) this.running++;
    else if (!(await this.slotFreed(signal))) return undefined;
    let freed = false;
    const release = () => {
      if (freed) return;
      freed = true;
      clearTimeout(timer);
      // A freed slot is handed to the next start as it is.
      const next = this.queue.shift();
      if (next) next();
      else this.running--;
    };
    const timer = setTimeout(release, this.slotMs);
    timer.unref?.();
    return release;
  }

  /** true once a slot was handed over; false when `signal` aborted first (then it holds none). */
  private slotFreed(signal: AbortSignal | undefined): Promise<boolean> {
    return new Promise((resolve) => {
      const handOver = () => {
        signal?.removeEventListener('abort', leave);
        resolve(true);
      };
      const leave = () => {
        const at = this.queue.indexOf(handOver);
        if (at >= 0) this.queue.splice(at, 1);
        resolve(false);
      };
      this.queue.push(handOver);
      signal?.addEventListener('abort', leave, { once: true });
    });
  }
}
