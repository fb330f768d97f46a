import { canonicalHash } from '../json/canonicalJson';
import type { DeclaredLspServer, LspDeclarationSection } from '../declaration/declarationModel';
import type { LspValidation } from './lspValidation';
import { isCredentialName } from '../mcp/securityLint';
import type { Template } from '../declaration/template';

// Apart from lsp.ts and the skills code so that verify (CLI, DSH plugin) does not pull in their parsers.

/** No setting, `null`, or VS Code's default `{}`: nothing configured, no `lsp` section. */
export function lspConfigured(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  return !(typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0);
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

/** True when the `lsp` section's pin is the hash of its `{servers, registersAll}` (for verify). */
export function lspSectionPinMatches({ servers, registersAll, pin }: LspDeclarationSection): boolean {
  try {
    return canonicalHash({ servers, registersAll }) === pin;
  } catch {
    // initializationOptions/configuration are free JSON: a value JCS cannot encode never matches.
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
