import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { DEFAULT_START_WAIT_MS, defaultStartConcurrency, retryAt, startConcurrency, StartSlots, startWaitMs, waitAtMost } from '../../../src/dsh-plugin/startPolicy';

describe('dsh-plugin: start policy', () => {
  const reconnect = { enabled: true, initialDelayMs: 500, maxDelayMs: 3000, maxAttempts: 3 };
  it('retries after the initial delay, doubling up to the maximum, at most maxAttempts times', () => {
    assert.deepEqual([1, 2, 3, 4].map((n) => retryAt(reconnect, n, 1000)), [1500, 2000, 3000, undefined]);
    assert.equal(retryAt({ ...reconnect, maxAttempts: 10 }, 9, 0), 3000, 'capped at maxDelayMs');
    assert.equal(retryAt({ ...reconnect, initialDelayMs: 2147483647, maxDelayMs: 2147483647, maxAttempts: 99 }, 60, 0), 2147483647, 'no overflow');
  });
  it('never retries with reconnect disabled', () => {
    assert.equal(retryAt({ ...reconnect, enabled: false }, 1, 0), undefined);
  });
  it('startWaitMs: a number of milliseconds, else the default', () => {
    assert.equal(startWaitMs(0), 0);
    assert.equal(startWaitMs(1500), 1500);
    for (const bad of [undefined, -1, Number.NaN, Infinity, '2000', null]) assert.equal(startWaitMs(bad), DEFAULT_START_WAIT_MS);
  });
  it('startConcurrency: a whole number from 1, else twice the CPUs (at least 4)', () => {
    assert.equal(startConcurrency(1, 2), 1);
    assert.equal(startConcurrency(12, 2), 12);
    for (const bad of [undefined, 0, -3, 2.5, Number.NaN, Infinity, '8', null, 5000]) assert.equal(startConcurrency(bad, 2), 4);
    assert.equal(defaultStartConcurrency(1), 4);
    assert.equal(defaultStartConcurrency(8), 16);
  });
  it('waitAtMost resolves at once when the signal aborts', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const waiting = waitAtMost(new Promise(() => undefined), 60000, controller.signal);
    controller.abort();
    await waiting;
    assert.ok(Date.now() - started < 1000);
  });
  it('waitAtMost resolves after ms when the work is still running', async () => {
    const started = Date.now();
    await waitAtMost(new Promise(() => undefined), 30);
    assert.ok(Date.now() - started >= 25);
  });
  it('waitAtMost resolves when the work settles and leaves no timer or listener behind (they would keep the turn reachable)', async () => {
    const controller = new AbortController();
    const set = globalThis.setTimeout;
    const clear = globalThis.clearTimeout;
    const pending = new Set<unknown>();
    let settle!: () => void;
    let waiting: Promise<void>;
    globalThis.setTimeout = ((fn: () => void, ms: number) => {
      const timer = set(fn, ms);
      pending.add(timer);
      return timer;
    }) as typeof setTimeout;
    globalThis.clearTimeout = ((timer: NodeJS.Timeout) => {
      pending.delete(timer);
      clear(timer);
    }) as typeof clearTimeout;
    try {
      waiting = waitAtMost(new Promise<void>((resolve) => (settle = resolve)), 60000, controller.signal);
    } finally {
      globalThis.setTimeout = set;
      globalThis.clearTimeout = clear;
    }
    assert.equal(pending.size, 1);
    assert.equal(getEventListeners(controller.signal, 'abort').length, 1);
    globalThis.clearTimeout = ((timer: NodeJS.Timeout) => {
      pending.delete(timer);
      clear(timer);
    }) as typeof clearTimeout;
    try {
      settle();
      await waiting;
    } finally {
      globalThis.clearTimeout = clear;
    }
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0, 'the abort listener is removed');
    assert.equal(pending.size, 0, 'the timer is cleared');
    await waitAtMost(Promise.reject(new Error('a failed start')), 60000, controller.signal);
  });
});

describe('dsh-plugin: StartSlots (the process-wide start limit)', () => {
  /** As the plugin's startServer uses a slot: enter, start, release when it settles. */
  async function inSlot<T>(slots: StartSlots, start: () => Promise<T>, signal?: AbortSignal): Promise<T | undefined> {
    const leave = await slots.enter(signal);
    if (!leave) return undefined;
    try {
      return await start();
    } finally {
      leave();
    }
  }
  /** A start that settles when told to; records how many run at once. */
  function gauge() {
    let now = 0;
    let peak = 0;
    const order: string[] = [];
    const settle = new Map<string, () => void>();
    const start = (name: string) => async () => {
      now++;
      peak = Math.max(peak, now);
      order.push(name);
      await new Promise<void>((resolve) => settle.set(name, resolve));
      now--;
      return name;
    };
    return { start, order, settle: (name: string) => settle.get(name)!(), peak: () => peak };
  }
  const tick = () => new Promise((r) => setImmediate(r));

  it('runs at most `limit` starts at once; the next queued one takes a freed slot, in order', async () => {
    const slots = new StartSlots(2, 60000);
    const g = gauge();
    const runs = ['a', 'b', 'c', 'd', 'e'].map((n) => inSlot(slots, g.start(n)));
    await tick();
    assert.deepEqual(g.order, ['a', 'b']);
    assert.equal(slots.waiting, 3);
    g.settle('b');
    await tick();
    assert.deepEqual(g.order, ['a', 'b', 'c']);
    // A new start arriving now queues behind the waiting ones (the freed slot was handed over).
    const late = inSlot(slots, g.start('late'));
    for (const n of ['a', 'c', 'd', 'e']) {
      g.settle(n);
      await tick();
    }
    g.settle('late');
    assert.deepEqual(await Promise.all([...runs, late]), ['a', 'b', 'c', 'd', 'e', 'late']);
    assert.deepEqual(g.order, ['a', 'b', 'c', 'd', 'e', 'late']);
    assert.equal(g.peak(), 2);
    assert.equal(slots.waiting, 0);
  });
  it('a start still running after slotMs gives its slot to the next (a slow server does not hold back the others)', async () => {
    const slots = new StartSlots(1, 30);
    const g = gauge();
    const slow = inSlot(slots, g.start('slow'));
    const next = inSlot(slots, g.start('next'));
    await tick();
    assert.deepEqual(g.order, ['slow']);
    await new Promise((r) => setTimeout(r, 80));
    assert.deepEqual(g.order, ['slow', 'next'], 'started once the slow one held its slot for slotMs');
    g.settle('next');
    g.settle('slow');
    assert.deepEqual(await Promise.all([slow, next]), ['slow', 'next']);
    // The slow one's late settlement frees nothing twice: one slot, one start at a time again.
    const h = gauge();
    const runs = ['x', 'y'].map((n) => inSlot(slots, h.start(n)));
    await tick();
    assert.deepEqual(h.order, ['x']);
    h.settle('x');
    await tick();
    h.settle('y');
    await Promise.all(runs);
    assert.equal(h.peak(), 1);
  });
  it('a queued start whose signal aborts leaves the queue and never runs; a failing start frees its slot', async () => {
    const slots = new StartSlots(1, 60000);
    const g = gauge();
    const first = inSlot(slots, g.start('first'));
    const controller = new AbortController();
    const gone = inSlot(slots, g.start('gone'), controller.signal);
    const kept = inSlot(slots, g.start('kept'));
    await tick();
    assert.equal(slots.waiting, 2);
    controller.abort();
    assert.equal(await gone, undefined);
    assert.equal(slots.waiting, 1);
    assert.equal(await inSlot(slots, g.start('never'), controller.signal), undefined, 'an aborted signal never queues');
    g.settle('first');
    await tick();
    g.settle('kept');
    assert.deepEqual(await Promise.all([first, kept]), ['first', 'kept']);
    assert.deepEqual(g.order, ['first', 'kept']);
    await assert.rejects(inSlot(slots, async () => { throw new Error('spawn failed'); }), /spawn failed/);
    assert.equal(await inSlot(slots, async () => 'after'), 'after', 'the failed start gave its slot back');
  });
  it('a release called twice (by its timer, then by the settled start) frees one slot only', async () => {
    const slots = new StartSlots(1, 10);
    const leave = await slots.enter();
    await new Promise((r) => setTimeout(r, 30)); // freed by its timer
    const second = await slots.enter();
    leave!(); // the start settles late: nothing more is freed
    const g = gauge();
    const third = inSlot(slots, g.start('third'));
    await tick();
    assert.deepEqual(g.order, [], 'the second start still holds the only slot');
    second!();
    await tick();
    assert.deepEqual(g.order, ['third']);
    g.settle('third');
    await third;
  });
});
