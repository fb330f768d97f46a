import { canonicalHash } from './canonicalJson';
import type { LspServerConfig, LspValidation } from './lsp';

// Apart from sections.ts so that verify (CLI, DSH plugin) does not pull in skills and YAML.

export interface LspDeclarationSection {
  servers: Record<string, LspServerConfig>;
  registersAll: boolean;
  /** `sha256:` + hex SHA-256 of the canonical JSON of `{servers, registersAll}`. */
  pin: string;
}

/** The `lsp` section from a validation of `dsh.lsp.servers`. */
export function lspDeclarationSection(validation: Pick<LspValidation, 'servers' | 'registersAll'>): LspDeclarationSection {
  const body = { servers: validation.servers, registersAll: validation.registersAll };
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

