// The DSH plugin's mount rule over real session plans (a real workspace, a real host store): what
// the plugin does with each server at a model step, given what happened in the session so far.
// The DSH tier runs the same code inside real DSH (test/dsh-e2e).
import { strict as assert } from 'node:assert';
import { planSession } from '../../../src/core/app/plan';
import { decideMount, type MountState } from '../../../src/dsh-plugin/mountDecision';
import { exportFolder, freshSession, testPorts, tempDir, workspace } from '../helpers';

const NODE = process.execPath;

async function planned(trustMode: 'ask' | 'pinned' | 'deny', approve: string[] = []) {
  const folder = workspace(JSON.stringify({
    inputs: [{ id: 'tok', type: 'promptString', description: 'token', password: true }],
    servers: { a: { command: NODE, args: ['a.js'] }, b: { command: NODE, args: ['b.js'] }, keyed: { command: NODE, env: { T: '${input:tok}' } } },
  }));
  const ports = testPorts(tempDir('mount-home-'));
  const { analysis } = await exportFolder(ports, folder);
  await ports.store.setTrustMode(trustMode);
  for (const name of approve) {
    const server = analysis.servers.find((s) => s.serverName === name)!;
    await ports.store.approve(folder, server.serverName, server.pin);
  }
  const { plan, declaration } = await planSession(ports, { cwd: folder, skills: false });
  const facts = { digest: declaration!.digest, turn: '1', now: 1000 };
  const entry = (name: string) => {
    const s = plan.servers.find((x) => x.serverName === name)!;
    return { name: s.serverName, pin: s.pin!, outcome: s.outcome, reason: s.reason };
  };
  const decide = (name: string, state: Partial<MountState> = {}, at = facts) => decideMount(entry(name), { ...freshSession(), ...state }, at);
  return { plan, entry, decide, facts };
}

describe('dsh-plugin: the mount rule over the session plan', function () {
  this.timeout(30000);

  it('a fresh session: approved pins start, unapproved ones ask, a server without its values is withheld with the plan\'s reason', async () => {
    const p = await planned('pinned', ['a']);
    assert.deepEqual(p.decide('a'), { kind: 'start' });
    assert.deepEqual(p.decide('b'), { kind: 'ask' });
    const keyed = p.decide('keyed');
    assert.equal(keyed.kind, 'withheld');
    assert.equal(keyed.kind === 'withheld' && keyed.reason.code, 'input-missing');
  });

  it('trust mode "ask" asks for every server; "deny" withholds every one', async () => {
    const ask = await planned('ask', ['a']);
    assert.deepEqual([ask.decide('a'), ask.decide('b')], [{ kind: 'ask' }, { kind: 'ask' }]);
    const deny = await planned('deny', ['a']);
    assert.deepEqual(['a', 'b', 'keyed'].map((n) => { const d = deny.decide(n); return d.kind === 'withheld' && d.reason.code; }), ['trust-deny', 'trust-deny', 'trust-deny']);
  });

  it('what happened in the session: running, rejected, allowed once, unanswered this turn, failed until its backoff ends', async () => {
    const p = await planned('pinned', ['a']);
    const key = (name: string) => `${name} ${p.entry(name).pin}`;
    assert.deepEqual(p.decide('a', { mounts: new Map([['a', { pin: p.entry('a').pin }]]) }), { kind: 'skip', why: 'running' });
    assert.deepEqual(p.decide('b', { starting: new Map([['b', { pin: p.entry('b').pin }]]) }), { kind: 'skip', why: 'running' });
    assert.deepEqual(p.decide('b', { rejected: new Set([key('b')]) }), { kind: 'skip', why: 'rejected' });
    assert.deepEqual(p.decide('b', { allowed: new Set([key('b')]) }), { kind: 'start' }, 'allowed once: a retry does not ask again');
    const unanswered = new Map([[key('b'), '1']]);
    assert.deepEqual(p.decide('b', { unanswered }), { kind: 'skip', why: 'unanswered' });
    assert.deepEqual(p.decide('b', { unanswered }, { ...p.facts, turn: '2' }), { kind: 'ask' }, 'asked again next turn');
    const failed = new Map([[key('a'), { digest: p.facts.digest, retryAt: 5000 }]]);
    assert.deepEqual(p.decide('a', { failed }), { kind: 'skip', why: 'failed' });
    assert.deepEqual(p.decide('a', { failed }, { ...p.facts, now: 5000 }), { kind: 'start' }, 'its backoff ended');
    assert.deepEqual(p.decide('a', { failed: new Map([[key('a'), { digest: p.facts.digest }]]) }, { ...p.facts, now: 1e12 }), { kind: 'skip', why: 'failed' }, 'never retried without reconnect');
    assert.deepEqual(p.decide('a', { failed }, { ...p.facts, digest: 'sha256:other' }), { kind: 'start' }, 'a new declaration tries again');
    // A rejection holds for the session, also for a server that is withheld: the plan decides that first.
    const keyedRejected = p.decide('keyed', { rejected: new Set([key('keyed')]) });
    assert.equal(keyedRejected.kind, 'withheld');
  });
});
