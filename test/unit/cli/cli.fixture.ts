// The CLI run in-process (its own code path, no child process), for tests that go through it.
import { strict as assert } from 'node:assert';
import { main } from '../../../src/cli/main';

/** Runs `main` with `--json` and returns its exit code and the one JSON object it printed. */
export async function cliJson(args: string[]): Promise<{ code: number; json: Record<string, unknown> }> {
  const out: string[] = [];
  const code = await main([...args, '--json'], { out: (t) => out.push(t), err: () => undefined });
  assert.equal(out.length, 1, 'the CLI prints exactly one JSON object');
  return { code, json: JSON.parse(out[0]) };
}
