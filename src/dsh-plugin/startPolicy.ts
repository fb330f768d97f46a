import type { Reconnect } from '../core/declaration/declarationModel';

/** How long the first request of a step waits for servers starting in it, unless configured. */
export const DEFAULT_START_WAIT_MS = 3000;

/** The plugin's `startWaitMs` config as a usable number (a bad value falls back to the default). */
export function startWaitMs(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 2147483647 ? value : DEFAULT_START_WAIT_MS;
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

