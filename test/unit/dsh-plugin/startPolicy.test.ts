import assert from 'node:assert/strict';
import { DEFAULT_START_WAIT_MS, delay, retryAt, startWaitMs } from '../../../src/dsh-plugin/startPolicy';

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
  it('delay resolves at once when the signal aborts', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const waiting = delay(60000, controller.signal);
    controller.abort();
    await waiting;
    assert.ok(Date.now() - started < 1000);
  });
});
