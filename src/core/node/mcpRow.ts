import { check02Rules, toMcpClientConfig, type McpClientConfig, type MissingValue } from '../mcp/dshRow';
import type { DeclaredServer } from '../declaration/declarationModel';
import { renderTemplate, type TemplateLookup } from '../declaration/template';
import { fs } from './fsReads';
import * as path from 'node:path';
import { loadEnvFile, type EnvFileResult } from './envFile';
import { isInside } from './reader';

/** The server's row: one `@deepseek-ai/dsh-mcp-client` instance config, valid for rc.8 and the stricter 0.2 rules. */
export type RowResult = { ok: true; row: McpClientConfig } | { ok: false; reason: string; missing?: Omit<MissingValue, 'where'> };

export interface RowOptions {
  /** The folder's real path, when the caller renders many rows of it at once (resolved once, not per row). */
  realFolder?: Promise<string>;
  /** envFiles the caller loaded a moment ago, by `${file}\0${folder}` (the session plan: verify's reads). */
  envFiles?: ReadonlyMap<string, EnvFileResult>;
}

const REASONS: Record<string, string> = {
  command: 'the command is blank',
  url: 'the url is not a valid http or https URL',
};

function refuseMissing(m: MissingValue, folder: string): RowResult {
  const reason = m.kind === 'input'
    ? `${m.where} needs input "${m.name}", which has no value stored on this machine for this folder (set it from the editor, or: dsh-bridge inputs set ${m.name} --workspace ${JSON.stringify(folder)})`
    : `${m.where} needs the environment variable ${m.name}, which is not set in the DSH process`;
  return { ok: false, reason, missing: { kind: m.kind, name: m.name } };
}

/**
 * Renders a verified declared server into a dsh-mcp-client row (the core's mapping):
 * `${input:}` from the host store (via `lookup.input`), `${env:}` from the DSH process
 * environment, the envFile read at this moment (declared `env` wins over it), and 0.2's
 * load-time rules applied (rc.8 accepts an empty command or a non-URL). A missing value
 * refuses the server; reasons never quote a value.
 */
export async function buildRow(server: DeclaredServer, folder: string, lookup: TemplateLookup, options: RowOptions = {}): Promise<RowResult> {
  let envFileValues: Record<string, string> | undefined;
  if (server.transport === 'stdio' && server.envFile !== undefined) {
    const envFile = renderTemplate(server.envFile, lookup);
    if ('missing' in envFile) return refuseMissing({ ...envFile.missing, where: 'the envFile path' }, folder);
    if (envFile.value !== '') {
      const loaded = options.envFiles?.get(`${envFile.value}\0${folder}`) ?? await loadEnvFile(envFile.value, folder);
      if (!loaded.ok) return { ok: false, reason: loaded.reason };
      // Verify compared it a moment ago; at a start this is the read that counts, so it is compared again.
      if (server.envFileSha256 !== undefined && loaded.sha256 !== server.envFileSha256) {
        return { ok: false, reason: 'the envFile changed since the export (export again, and approve again in the pinned mode)' };
      }
      envFileValues = loaded.vars;
    }
  }
  const rendered = toMcpClientConfig(server, lookup, { envFileValues });
  if ('missing' in rendered) return refuseMissing(rendered.missing, folder);
  const violations = check02Rules(rendered.config as unknown as Record<string, unknown>);
  if (violations.length) return { ok: false, reason: violations.map((v) => REASONS[v] ?? `DSH would refuse "${v}"`).join('; ') };
  if (rendered.config.transport === 'stdio' && rendered.config.cwd !== undefined) {
    const cwd = await confinedCwd(rendered.config.cwd, folder, options.realFolder);
    if (!cwd.ok) return cwd;
    return { ok: true, row: { ...rendered.config, cwd: cwd.path } };
  }
  return { ok: true, row: rendered.config };
}

/**
 * The cwd as it resolves now, at start: a cwd declared inside the workspace folder must still
 * resolve inside it (a folder replaced by a link out after the export is refused). The real path
 * is what the server gets, so a later swap of a link on the way no longer matters. A cwd the user
 * declared outside the folder is theirs to choose and is only required to exist.
 */
async function confinedCwd(cwd: string, folder: string, knownRealFolder?: Promise<string>): Promise<{ ok: true; path: string } | { ok: false; reason: string }> {
  let real: string;
  try {
    real = await fs.realpath(cwd);
  } catch {
    return { ok: false, reason: 'the cwd does not exist' };
  }
  // A cwd outside the folder needs no folder (the user declaration's folder may not exist yet).
  if (!isInside(path.resolve(folder), path.resolve(cwd))) return { ok: true, path: real };
  let realFolder: string;
  try {
    realFolder = await (knownRealFolder ?? fs.realpath(folder));
  } catch {
    return { ok: false, reason: 'the cwd does not exist' };
  }
  if (!isInside(realFolder, real)) {
    return { ok: false, reason: 'the cwd now resolves outside the workspace folder (a link out was put in its place after the export)' };
  }
  return { ok: true, path: real };
}
