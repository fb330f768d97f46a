import { canonicalHash } from './canonicalJson';
import type { LspServerConfig, LspValidation } from './lsp';
import { isCredentialName } from './securityLint';
import type { Template } from './template';

// Apart from sections.ts so that verify (CLI, DSH plugin) does not pull in skills and YAML.

/** A server as declared: credential-named env values are references, never copied (see below). */
export type DeclaredLspServer = Omit<LspServerConfig, 'env'> & { env: Record<string, Template> };

export interface LspDeclarationSection {
  servers: Record<string, DeclaredLspServer>;
  registersAll: boolean;
  /** `sha256:` + hex SHA-256 of the canonical JSON of `{servers, registersAll}`. */
  pin: string;
}

/** The `lsp` section from a validation of `dsh.lsp.servers`. */
export function lspDeclarationSection(validation: Pick<LspValidation, 'servers' | 'registersAll'>): LspDeclarationSection {
  const servers: Record<string, DeclaredLspServer> = {};
  for (const [id, server] of Object.entries(validation.servers)) {
    Object.defineProperty(servers, id, { value: { ...server, env: declaredEnv(server.env) }, enumerable: true, writable: true, configurable: true });
  }
  const body = { servers, registersAll: validation.registersAll };
  return { ...body, pin: canonicalHash(body) };
}

/** True when a declaration's `lsp` section is well-formed enough to hash and its pin matches (for verify). */
export function lspSectionPinMatches(section: unknown): boolean {
  if (typeof section !== 'object' || section === null || Array.isArray(section)) return false;
  const { servers, registersAll, pin } = section as Record<string, unknown>;
  if (typeof pin !== 'string' || typeof registersAll !== 'boolean' || typeof servers !== 'object' || servers === null) return false;
  try {
    return canonicalHash({ servers, registersAll }) === pin;
  } catch {
    return false;
  }
}


/**
 * Settings hold LSP env values as plain text, but the declaration lives in the workspace: a
 * credential-named variable (API_KEY, GITHUB_TOKEN, ...) is written as a reference to the
 * same-named variable of the DSH process (`[{"env": NAME}]`, the declaration's template form),
 * never as its value.
 */
function declaredEnv(env: Record<string, string>): Record<string, Template> {
  const out: Record<string, Template> = {};
  for (const [name, value] of Object.entries(env)) {
    Object.defineProperty(out, name, { value: isCredentialName(name) ? [{ env: name }] : value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
