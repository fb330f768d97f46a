// The session plan's differential in the real rc.8 host (issue 22): generated workspace states
// (trust modes, approvals, a missing input, tool choices, a tampered or stale declaration, a
// session in a subfolder, deny), each exported by our CLI; what `dsh-bridge verify --json` says
// starts (and which of its tools are offered) must be exactly the MCP tools of the session's
// FIRST request, and nothing DSH would ask about or that is withheld may be in it. Nobody answers
// DSH's approval here (as in a headless run), so `asks` never starts. The unit tier's differential
// (test/unit/core/app/plan.differential.test.ts) checks the faces against each other over 1,000
// states; this one checks the plan against what a real session carries.
// Run: DSH_E2E_SUITE=plan npm run test:dsh (DSH_DIFF_SEED picks the states, default 20261201: the run prints
// it, and a failure names it; DSH_E2E_PLAN_STATES sets the count).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { approvalAnswerer, HERE } from './host.mjs';
import { approvePin, CLI, cli, readDeclaration, setTrustMode } from './fixtures.mjs';
import { session, withSmallest } from './smallest.mjs';

const SKIP = process.env.DSH_E2E_HOST === 'base' ? 'smallest host only' : false;
const FIXTURE = path.join(HERE, 'mcp-fixture-server.mjs');
const STATES = Math.max(20, Number(process.env.DSH_E2E_PLAN_STATES) || 24);
/** The generator's seed: the same seed gives the same states, so a failure replays with it. */
const SEED = process.env.DSH_DIFF_SEED === undefined ? 20261201 : Number(process.env.DSH_DIFF_SEED);
if (!Number.isSafeInteger(SEED)) throw new Error(`DSH_DIFF_SEED must be an integer, not ${process.env.DSH_DIFF_SEED}`);
console.log(`plan differential: seed ${SEED} (DSH_DIFF_SEED=${SEED} DSH_E2E_SUITE=plan npm run test:dsh replays it)`);

/** A small seeded generator (mulberry32): the same seed gives the same states. */
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { bool: (p = 0.5) => next() < p, pick: (list) => list[Math.floor(next() * list.length)] };
}

/** What breaks the declaration (or the session's place) after the export, cycled so each occurs. */
const KINDS = ['plain', 'plain', 'tampered', 'stale', 'subfolder', 'missing-input', 'deny'];

/** One generated state: its servers, what is stored on this machine, and what happens after the export. */
function generate(r, i) {
  const kind = KINDS[i % KINDS.length];
  const names = r.bool(0.6) ? ['alpha', 'beta'] : ['alpha'];
  return {
    kind,
    trust: kind === 'deny' ? 'deny' : r.pick(['ask', 'pinned', 'pinned']),
    servers: names.map((name) => ({
      name,
      // A `${input:}` value the export leaves to the host store; stored unless the state forgets it.
      keyed: kind === 'missing-input' ? name === 'alpha' : r.bool(0.3),
      approved: r.bool(0.7),
      // The `dsh.tools` choice of the server (the fixture lists one tool, `ping`).
      choice: r.pick([undefined, undefined, { only: ['ping'] }, { exclude: ['ping'] }]),
    })),
  };
}

function materialize(root, home, state, i) {
  const folder = path.join(root, `s${i}`);
  fs.mkdirSync(path.join(folder, '.vscode'), { recursive: true });
  fs.mkdirSync(path.join(folder, '.git'));
  const inputs = state.servers.some((s) => s.keyed) ? [{ id: 'tok', type: 'promptString', description: 'token', password: true }] : [];
  const servers = Object.fromEntries(state.servers.map((s) => [s.name, {
    type: 'stdio', command: process.execPath, args: [FIXTURE, 'stdio'],
    env: { FIXTURE_NAME: s.name, ...(s.keyed ? { TOKEN: '${input:tok}' } : {}) },
  }]));
  fs.writeFileSync(path.join(folder, '.vscode/mcp.json'), JSON.stringify({ inputs, servers }, null, 2));
  const tools = Object.fromEntries(state.servers.filter((s) => s.choice).map((s) => [s.name, s.choice]));
  if (Object.keys(tools).length) fs.writeFileSync(path.join(folder, '.vscode/settings.json'), JSON.stringify({ 'dsh.tools': tools }));
  setTrustMode(home, state.trust === 'deny' ? 'ask' : state.trust); // an export in deny writes nothing
  cli(home, ['export', '--workspace', folder]);
  if (inputs.length && state.kind !== 'missing-input') cli(home, ['inputs', 'set', 'tok', '--workspace', folder], 'token-value');
  const declaration = readDeclaration(folder);
  for (const s of declaration.servers) if (state.servers.find((x) => x.name === s.name)?.approved) approvePin(home, folder, s.serverName, s.pin);
  setTrustMode(home, state.trust);
  let cwd = folder;
  if (state.kind === 'tampered') {
    const file = path.join(folder, '.dsh/declaration.json');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(`"FIXTURE_NAME"`, `"FIXTURE_NAMF"`));
  } else if (state.kind === 'stale') {
    fs.writeFileSync(path.join(folder, '.vscode/mcp.json'), `${fs.readFileSync(path.join(folder, '.vscode/mcp.json'), 'utf8')}\n`);
  } else if (state.kind === 'subfolder') {
    cwd = path.join(folder, 'packages/app');
    fs.mkdirSync(cwd, { recursive: true });
  }
  return cwd;
}

/** The MCP tools `verify --json` (run where the session runs) says the session's first request carries. */
function plannedTools(home, cwd) {
  const run = spawnSync(process.execPath, [CLI, 'verify', '--json', '--workspace', cwd], { env: { ...process.env, DSH_HOME: home }, encoding: 'utf8' });
  const { dsh } = JSON.parse(run.stdout);
  const offered = (state) => state === 'offered' || state === 'unpinned';
  const tools = [];
  for (const s of dsh.plan.servers) {
    if (!dsh.servers.includes(s.serverName)) continue;
    const listed = s.tools?.tools.find((t) => t.name === 'ping');
    if (offered(listed ? listed.state : s.tools?.unlisted.state ?? 'offered')) tools.push(`mcp__${s.serverName}__ping`);
  }
  return { tools: tools.sort(), dsh };
}

test(`DSH rc.8: the first request of a session carries exactly what verify --json plans, over ${STATES} generated workspace states`, { timeout: 600000, skip: SKIP }, (t) => withSmallest(async ({ h, tmp, turn }) => {
  const r = rng(SEED);
  approvalAnswerer(h.root); // nobody answers: every question is `unavailable`, as in a headless run
  const seen = new Set();
  for (let i = 0; i < STATES; i++) {
    const state = generate(r, i);
    const cwd = materialize(tmp.root, tmp.home, state, i);
    const { tools: planned, dsh } = plannedTools(tmp.home, cwd);
    const s = await session(h, `plan-${i}`, cwd, `m-plan-${i}`);
    await turn(s);
    const [first] = h.llm.requests.get(`m-plan-${i}`);
    const carried = first.tools.map((x) => x.name).filter((n) => n.startsWith('mcp__')).sort();
    const what = `seed ${SEED} (DSH_DIFF_SEED replays it), state ${i} ${JSON.stringify(state)}: plan starts ${JSON.stringify(dsh.servers)}, asks ${JSON.stringify(dsh.asks)}, withheld ${JSON.stringify(dsh.withheld)}, blocked ${JSON.stringify(dsh.plan.blocked.map((b) => b.code))}`;
    assert.deepEqual(carried, planned, what);
    for (const name of [...dsh.asks, ...dsh.withheld.map((w) => w.serverName)]) assert.ok(!carried.some((n) => n.startsWith(`mcp__${name}__`)), `${what}: ${name} is not started`);
    seen.add(state.kind);
    seen.add(`trust:${state.trust}`);
    if (dsh.servers.length) seen.add('starts');
    if (dsh.asks.length) seen.add('asks');
    if (dsh.withheld.length) seen.add('withheld');
    if (planned.length < dsh.servers.length) seen.add('tool-left-out');
    await s.dispose();
  }
  t.diagnostic(`covered: ${[...seen].sort().join(', ')}`);
  for (const kind of [...new Set(KINDS), 'trust:ask', 'trust:pinned', 'trust:deny', 'starts', 'asks', 'withheld']) assert.ok(seen.has(kind), `the states of seed ${SEED} covered ${kind}`);
}));
