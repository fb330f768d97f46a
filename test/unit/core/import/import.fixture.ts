// The other clients' files the import tests read (test/fixtures/import) and what they check a plan with.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseJsonc } from '../../../../src/core/json/jsonTree';
import { planImport, type ImportPlan } from '../../../../src/core/import/importPlan';
import type { ImportClient } from '../../../../src/core/import/importNotes';

export const FIXTURES = path.resolve(__dirname, '../../../fixtures/import');
export const fixture = (rel: string) => readFileSync(path.join(FIXTURES, rel), 'utf8');
export const SOURCES: Record<ImportClient, string> = {
  cursor: 'cursor/.cursor/mcp.json',
  claude: 'claude/.mcp.json',
  gemini: 'gemini/.gemini/settings.json',
  codex: 'codex/.codex/config.toml',
};
/** Every literal credential in the fixtures: none may reach a written file, a note or CLI output. */
export const SECRETS = ['ghp_R8x2Kq9ZtW4mLp7VbN3cYd6Fh1Js5Ga0QeUo', 'sk-proj-Zt8mWq2Lr5Vx9Ck3Hp6Jn1Bd4Fg7', 'glpat-aB3dE5fG7hJ9kL1mN3pQ', 'your-api-token'];

export function importFixture(client: ImportClient, target: string | undefined = undefined, folder = '/home/dev/projects/app'): ImportPlan {
  return planImport({ client, sources: [{ file: SOURCES[client], text: fixture(SOURCES[client]), scope: 'project' }], folder, target });
}

export const notesOf = (plan: ImportPlan) => plan.notes.map((n) => [n.server, n.field, n.code].filter(Boolean).join(' '));
export const servers = (plan: ImportPlan) => (parseJsoncValue(plan.after) as { servers: Record<string, Record<string, unknown>> }).servers;

export function parseJsoncValue(text: string): unknown {
  const { root, errors } = parseJsonc(text);
  assert.deepEqual(errors, [], 'the written file must parse');
  const toValue = (n: typeof root): unknown => {
    if (!n) return undefined;
    if (n.type === 'object') return Object.fromEntries((n.children ?? []).map((p) => [p.children![0].value, toValue(p.children![1])]));
    if (n.type === 'array') return (n.children ?? []).map(toValue);
    return n.value;
  };
  return toValue(root);
}

/** True when every line of `before` is still in `after`, in order (the import only adds). */
export function keepsEveryLine(before: string, after: string): boolean {
  const lines = after.split('\n');
  let i = 0;
  for (const line of before.split('\n')) {
    while (i < lines.length && lines[i] !== line) i++;
    if (i === lines.length) return false;
    i++;
  }
  return true;
}

/** The literal credentials in a Claude Code file (args, env, URL): none may be written or shown. */
export const CREDENTIALS_FILE = 'credentials/.mcp.json';
export const CREDENTIALS = {
  linear: 'lin_api_Zq8Wm2Xr5Ty9Lp3Kd7Hv1Nb4Gc6Fj0', postgres: 'Pg-PASSWORD-7d1e', apiKeyHeader: 'xk-41c9b2e87a5d', cookie: 'session=ck-93f0aa17e2',
  token: 'tk-5e8d1c0b9a7f', apiKey: 'ak-20f6e4d3c2b1', password: 'pw-c7a9e1b3d5f2', mongo: 'mg-PASS-66e1', mysql: 'my-PASS-3f2a', redis: 'rd-PASS-91bc',
  amqp: 'am-PASS-d04e', url: 'hp-PASS-b7',
};

/** A Codex config.toml of `count` stdio servers, each with args and an inline credential. */
export function codexServers(count: number, prefix = 'tool'): string {
  let text = '';
  for (let i = 0; i < count; i++) {
    text += `[mcp_servers.${prefix}-${i}]\ncommand = "npx"\nargs = ["-y", "@example/mcp-${i}@1.2.${i}", "--root", "."]\nenv = { LOG_LEVEL = "info", API_KEY = "k-${i}-abcdefghijklmnop" }\n\n`;
  }
  return text;
}
