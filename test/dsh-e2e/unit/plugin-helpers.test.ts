// Unit tests of the DSH plugin's pure helpers (the e2e test covers them inside real DSH).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { dropTools, mergeTools, TOOL_ORDER_REST } from '../../../src/dsh-plugin/assembly';
import { isReservationConflict } from '../../../src/dsh-plugin/mcpModules';
import { mergeSections } from '../../../src/dsh-plugin/lspMount';
import { buildRow } from '../../../src/dsh-plugin/rows';
import { DEFAULT_START_WAIT_MS, defaultStartConcurrency, retryAt, startConcurrency, StartSlots, startWaitMs, waitAtMost } from '../../../src/dsh-plugin/startPolicy';
import { getEventListeners } from 'node:events';
import type { DeclaredServer } from '../../../src/core/declaration/declarationModel';
import { sha256Hex } from '../../../src/core/json/canonicalJson';

const tool = (name: string) => ({ name, description: name, parameters: { type: 'object' } });
const names = (a: { tools: { name: string }[] }) => a.tools.map((t) => t.name);

describe('dsh-plugin: mergeTools', () => {
  it('without toolOrder: inserts in code-unit order, as DSH sorts', () => {
    const a = { tools: ['a_tool', 'bash', 'zed'].map(tool) };
    const added = mergeTools(a, ['mcp__s__b', 'mcp__s__a', 'mcp__s__B'].map(tool));
    assert.deepEqual(added, ['mcp__s__B', 'mcp__s__a', 'mcp__s__b']);
    assert.deepEqual(names(a), ['a_tool', 'bash', 'mcp__s__B', 'mcp__s__a', 'mcp__s__b', 'zed']);
  });
  it('with toolOrder: unlisted tools go to the rest entry, sorted; listed ones to their place', () => {
    const order = ['zed', TOOL_ORDER_REST, 'a_tool'];
    const a = { tools: ['zed', 'bash', 'a_tool'].map(tool) };
    mergeTools(a, ['mcp__s__x', 'mcp__s__c'].map(tool), order);
    assert.deepEqual(names(a), ['zed', 'bash', 'mcp__s__c', 'mcp__s__x', 'a_tool']);
  });
  it('skips tools already present, is idempotent, never reorders existing tools', () => {
    const a = { tools: ['y', 'x'].map(tool) };
    mergeTools(a, ['x', 'm'].map(tool));
    mergeTools(a, ['x', 'm'].map(tool));
    assert.deepEqual(names(a), ['m', 'y', 'x']);
  });
  it('copies a frozen array instead of failing, and detaches parameters', () => {
    const p = { type: 'object', properties: {} };
    const a = { tools: Object.freeze([tool('a')]) as unknown as ReturnType<typeof tool>[] };
    mergeTools(a, [{ name: 'b', description: '', parameters: p }]);
    assert.deepEqual(names(a), ['a', 'b']);
    assert.notEqual(a.tools[1].parameters, p);
  });
  it('dropTools removes only stopped servers\' tools that are no longer visible', () => {
    const a = { tools: ['bash', 'mcp__s__a', 'mcp__s2__a', 'mcp__s__b'].map(tool) };
    assert.deepEqual(dropTools(a, new Set(['s']), new Set(['mcp__s__b'])), ['mcp__s__a']);
    assert.deepEqual(names(a), ['bash', 'mcp__s2__a', 'mcp__s__b']);
  });
});

describe('dsh-plugin: buildRow', () => {
  const base = {
    name: 's', serverName: 's', toolCallTimeoutMs: 1000, failOnStartupError: false,
    reconnect: { enabled: true, initialDelayMs: 500, maxDelayMs: 30000, maxAttempts: 10 },
    inputRefs: ['tok'], envRefs: ['HOME_X'], pin: `sha256:${'0'.repeat(64)}`,
  };
  // A real folder: the cwd is resolved at start.
  const W = realpathSync(mkdtempSync(path.join(tmpdir(), 'row-cwd-')));
  after(() => rmSync(W, { recursive: true, force: true }));
  const stdio = { ...base, transport: 'stdio', command: 'node', args: ['a', ['--k=', { input: 'tok' }]], env: { K: [{ input: 'tok' }], H: [{ env: 'HOME_X' }] }, cwd: W } as DeclaredServer;
  const lookup = (inputs: Record<string, string>, env: Record<string, string>) => ({ input: (id: string) => inputs[id], env: (n: string) => env[n] });

  it('renders inputs and env into an explicit row', async () => {
    const r = await buildRow(stdio, W, lookup({ tok: 'T' }, { HOME_X: 'h' }));
    assert.deepEqual(r, { ok: true, row: { transport: 'stdio', serverName: 's', toolCallTimeoutMs: 1000, failOnStartupError: false, reconnect: base.reconnect, command: 'node', args: ['a', '--k=T'], env: { K: 'T', H: 'h' }, cwd: W } });
  });
  it('refuses a missing input or env value, naming it but no value', async () => {
    const r1 = await buildRow(stdio, W, lookup({}, { HOME_X: 'h' }));
    assert.equal(r1.ok, false);
    assert.match((r1 as { reason: string }).reason, /needs input "tok"/);
    const r2 = await buildRow(stdio, W, lookup({ tok: 'T' }, {}));
    assert.match((r2 as { reason: string }).reason, /environment variable HOME_X/);
  });
  it('envFile is loaded at start, declared env wins over it', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'row-'));
    try {
      writeFileSync(path.join(root, '.env'), 'K=from-file\nF=file-only\n');
      const r = await buildRow({ ...stdio, envFile: path.join(root, '.env') } as DeclaredServer, root, lookup({ tok: 'T' }, { HOME_X: 'h' }));
      assert.ok(r.ok);
      assert.deepEqual((r as { row: { env: object } }).row.env, { F: 'file-only', K: 'T', H: 'h' });
      // Pinned at export: a changed file refuses the server (the read at start is the one that counts).
      const pinned = { ...stdio, envFile: path.join(root, '.env'), envFileSha256: sha256Hex('K=from-file\nF=file-only\n') } as DeclaredServer;
      assert.equal((await buildRow(pinned, root, lookup({ tok: 'T' }, { HOME_X: 'h' }))).ok, true);
      writeFileSync(path.join(root, '.env'), 'K=from-file\nF=file-only\nNODE_OPTIONS=--require /tmp/x.js\n');
      assert.match(JSON.stringify(await buildRow(pinned, root, lookup({ tok: 'T' }, { HOME_X: 'h' }))), /envFile changed since the export/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
  it('cwd re-resolved at start: a folder replaced by a link out of the workspace is refused', async () => {
    const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'row-link-')));
    try {
      const ws = path.join(root, 'ws');
      const outside = path.join(root, 'outside');
      mkdirSync(path.join(ws, 'sub'), { recursive: true });
      mkdirSync(outside);
      const server = { ...stdio, cwd: path.join(ws, 'sub') } as DeclaredServer;
      const values = lookup({ tok: 'T' }, { HOME_X: 'h' });
      assert.equal((await buildRow(server, ws, values)).ok, true);
      rmSync(path.join(ws, 'sub'), { recursive: true });
      symlinkSync(outside, path.join(ws, 'sub'));
      assert.match(JSON.stringify(await buildRow(server, ws, values)), /cwd now resolves outside the workspace folder/);
      // A link that stays inside is followed, and the server gets the real folder.
      mkdirSync(path.join(ws, 'real'));
      rmSync(path.join(ws, 'sub'));
      symlinkSync(path.join(ws, 'real'), path.join(ws, 'sub'));
      const inside = await buildRow(server, ws, values);
      assert.equal(inside.ok && inside.row.transport === 'stdio' ? inside.row.cwd : undefined, path.join(ws, 'real'));
      // A cwd the user declared outside the folder stays theirs to choose.
      assert.equal((await buildRow({ ...stdio, cwd: outside } as DeclaredServer, ws, values)).ok, true);
      // The envFile is re-resolved too: a link out is refused.
      writeFileSync(path.join(outside, '.env'), 'A=1\n');
      symlinkSync(path.join(outside, '.env'), path.join(ws, '.env'));
      assert.match(JSON.stringify(await buildRow({ ...stdio, cwd: ws, envFile: path.join(ws, '.env') } as DeclaredServer, ws, values)), /link that leaves its folder/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
  it('applies the 0.2 rules rc.8 does not check', async () => {
    const http = { ...base, transport: 'streamable-http', url: [{ input: 'tok' }], headers: {} } as DeclaredServer;
    assert.match(JSON.stringify(await buildRow(http, '/w', lookup({ tok: 'not a url' }, {}))), /not a valid http or https URL/);
    assert.match(JSON.stringify(await buildRow(http, '/w', lookup({ tok: 'ftp://x' }, {}))), /not a valid http or https URL/);
    assert.equal((await buildRow(http, '/w', lookup({ tok: 'https://x/mcp' }, {}))).ok, true);
    assert.match(JSON.stringify(await buildRow({ ...stdio, command: ' ' } as DeclaredServer, W, lookup({ tok: 'T' }, { HOME_X: 'h' }))), /blank/);
  });
});

describe('dsh-plugin: reservation conflict detection', () => {
  it('recognises rc.8\'s message, also as a cause', () => {
    const e = new Error('mcp-client: serverName "x" is already in use by another mcp-client instance — pick a unique serverName in cordis.yml');
    assert.ok(isReservationConflict(e));
    assert.ok(isReservationConflict(new Error('wrapped', { cause: e })));
    assert.ok(!isReservationConflict(new Error('spawn ENOENT')));
  });
});

describe('dsh-plugin: mergeSections (tool:lsp registered during the assembly)', () => {
  // The shape of rc.8 dsh-system-prompt's merged section table for a scope.
  const table = new Map([
    ['harness:identity', { name: 'harness:identity', order: -100, text: 'id' }],
    ['persona', { name: 'persona', order: 0, text: '' }],
    ['tool:lsp', { name: 'tool:lsp', order: 112, text: (ctx: unknown) => `lsp ${String((ctx as { who: string }).who)}` }],
    ['late', { name: 'late', order: 500, text: 'late' }],
  ]);
  const systemPrompt = { layers: { merge: (_scope: unknown, pick: (l: { sections: unknown }) => unknown) => (pick({ sections: 'x' }) === 'x' ? table : new Map()) } };
  const sections = () => [{ name: 'harness:identity', text: 'id' }, { name: 'persona', text: '' }, { name: 'late', text: 'late' }];

  it('inserts the section at the place of its order, with its text rendered for the context', async () => {
    const a = { tools: [], sections: sections() };
    mergeSections(a, systemPrompt, {}, ['tool:lsp'], { who: 'A' });
    assert.deepEqual(a.sections.map((s) => s.name), ['harness:identity', 'persona', 'tool:lsp', 'late']);
    assert.equal(a.sections[2].text, 'lsp A');
    mergeSections(a, systemPrompt, {}, ['tool:lsp'], { who: 'A' });
    assert.equal(a.sections.length, 4, 'idempotent');
  });
  it('leaves the assembly alone on a build without the section table', async () => {
    const a = { tools: [], sections: sections() };
    mergeSections(a, {}, {}, ['tool:lsp'], {});
    mergeSections(a, undefined, {}, ['tool:lsp'], {});
    assert.equal(a.sections.length, 3);
  });
});

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
