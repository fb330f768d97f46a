// A folder's servers, a DSH profile with the bridge's bundle, and the built CLI, for the doctor's tests.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { testPorts } from '../../helpers';
import { doctorReport } from '../../../../src/core/app/doctor';

export const ROOT = path.resolve(__dirname, '../../../..');
export const CLI = path.join(ROOT, 'dist/cli.js');
export const MCP = JSON.stringify({
  inputs: [{ id: 'token', type: 'promptString', description: 'token', password: true }],
  servers: {
    echo: { type: 'stdio', command: 'node', args: ['server.js'], env: { TOKEN: '${input:token}' } },
    plain: { type: 'stdio', command: 'node', args: ['plain.js'] },
    old: { type: 'sse', url: 'https://example.com/sse' },
  },
});

/** A profile laid out as `dsh plugin add` leaves it: bundles listed, the bundle package in node_modules. */
export function profileWithBundle(home: string, bundles = ['@deepseek-ai/dsh-base', '@deepseek-ai/dsh-headless', 'dsh-bridge-dsh']) {
  const dir = path.join(home, 'profiles', 'headless');
  mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'dsh-profile-headless', dsh: { profile: { bundles } } }));
  writeFileSync(path.join(dir, 'cordis.patch.yml'), '# Your patch layer for this dsh profile\n[]\n');
  cpSync(path.join(ROOT, 'packages/dsh-bridge-dsh'), path.join(dir, 'node_modules/dsh-bridge-dsh'), { recursive: true, filter: (src) => !src.includes('node_modules') });
  return dir;
}

export function cli(args: string[], home: string) {
  return spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, DSH_HOME: home, PATH: path.dirname(process.execPath) }, encoding: 'utf8' });
}

/** The doctor's report on a machine whose PATH finds no dsh, for the default (headless) profile. */
export const doctor = (folder: string, home: string, env: Record<string, string> = {}) => doctorReport(testPorts(home, { env: { PATH: '', ...env } }), { folder, profile: 'headless' });
