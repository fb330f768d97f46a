// End-to-end, smallest rc.8 host: what a session's servers look like to the user when they start
// (the approval text), and how they start (in parallel with a bounded wait, no retry storm, the
// pool of dsh-mcp-client copies), with the real server-everything and MCP SDK fixture servers.
// Run: DSH_E2E_SUITE=startup npm run test:dsh
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { approvalAnswerer } from './host.mjs';
import { everythingWorkspace, readDeclaration, SERVER_JS } from './fixtures.mjs';
import { session, withSmallest } from './smallest.mjs';

const SECRET = 'sekret-review-5d2a';

test('DSH rc.8: the in-turn approval shows the full launch, cwd, env names (no values), danger highlights and the pin', { timeout: 90000 }, (t) => withSmallest(async ({ h, tmp, turn }) => {
  const A = everythingWorkspace(tmp.root, 'A', {
    home: tmp.home, input: SECRET,
    mutate: (entry, folder) => {
      fs.mkdirSync(path.join(folder, 'sub'));
      entry.cwd = '${workspaceFolder}/sub';
      // A variable that changes which code node loads: the review highlights it.
      entry.env.NODE_OPTIONS = '--max-old-space-size=256';
    },
  });
  const server = readDeclaration(A).servers[0];
  const answers = approvalAnswerer(h.root);
  answers.setDefault('allowed-once');
  const s = await session(h, 'sR', A, 'mR');
  await turn(s);
  assert.equal(answers.asked.length, 1);
  const { reason, toolName } = answers.asked[0];
  t.diagnostic(`the approval DSH shows:\n${reason}`);
  assert.equal(toolName, 'mcp__everything__*');
  const lines = reason.split('\n');
  assert.equal(lines[0], `Start MCP server "everything" from ${path.join(A, '.dsh', 'declaration.json')}?`);
  assert.ok(lines.includes(`    ${process.execPath} ${SERVER_JS} stdio`), 'the full command line, untruncated');
  assert.ok(lines.includes(`  Working folder: ${path.join(A, 'sub')}`), 'the working folder');
  assert.ok(lines.includes('  Environment variables (names only): EVERYTHING_API_KEY, BRIDGE_FROM_ENV, NODE_OPTIONS'), 'env names');
  assert.ok(lines.some((l) => l.startsWith('  DANGER: Sets NODE_OPTIONS')), 'the loader variable is highlighted');
  assert.ok(lines.includes(`  Pin: ${server.pin}`), 'the full pin');
  for (const value of [SECRET, 'x', '--max-old-space-size=256']) assert.ok(!lines.some((l) => l.includes(`=${value}`) || l.endsWith(` ${value}`)), `no value (${value})`);
  assert.ok(!reason.includes(SECRET));
  // Approved: it starts, and the first request lists its tools.
  assert.ok(h.llm.requests.get('mR')[0].tools.some((x) => x.name === 'mcp__everything__echo'));
  await s.dispose();
}));
