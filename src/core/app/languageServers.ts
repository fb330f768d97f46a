/**
 * The language servers of `dsh.lsp.servers` as DSH takes them: the setting validated as the
 * dsh-lsp-stdio row and dsh-lsp's registry do, which server a file is routed to, and the row a
 * session starts from a declaration's `lsp` section.
 */
import type { LspDeclarationSection } from '../declaration/declarationModel';
import type { TemplateLookup } from '../declaration/template';
import type { CommandResolver } from '../lsp/lspCommand';
import { toLspStdioConfig, type LspRowResult } from '../lsp/lspRow';
import { finalExtension, lspServerFor } from '../lsp/lspRouting';
import { lspConfigured } from '../lsp/lspSection';
import { validateLspServers, type LspValidation } from '../lsp/lspValidation';

export type { LspValidation };

/** The setting's value validated (each command looked up with `resolveCommand` when given), as the export validates it. */
export function validateLanguageServerSetting(value: unknown, resolveCommand?: CommandResolver): Promise<LspValidation> {
  return validateLspServers(value, resolveCommand ? { resolveCommand } : {});
}

export type RouteOutcome = 'routed' | 'routed-but-none-registered' | 'no-extension' | 'unclaimed' | 'none-registered' | 'not-configured';

/** Where DSH sends a file, and why. */
export interface FileRoute {
  outcome: RouteOutcome;
  /** The file's routing key (its final extension, lowercased; `''` for none). */
  extension: string;
  providerId?: string;
  languageId?: string;
}

/**
 * DSH's routing rule (the final extension of the file name, lowercased) over a folder's
 * `dsh.lsp.servers` and its validation: a claimed file is routed only while DSH registers the
 * servers at all (one invalid entry: it registers none). Configured as the export decides an
 * `lsp` section: anything but no value, `null` and `{}`.
 */
export function routeFile(fileName: string, setting: unknown, validation: Pick<LspValidation, 'servers' | 'registersAll'>): FileRoute {
  const extension = finalExtension(fileName);
  if (!lspConfigured(setting)) return { outcome: 'not-configured', extension };
  if (extension === '') return { outcome: 'no-extension', extension };
  const hit = lspServerFor(fileName, validation.servers);
  if (hit) return { outcome: validation.registersAll ? 'routed' : 'routed-but-none-registered', extension, providerId: hit.providerId, languageId: hit.languageId };
  return { outcome: validation.registersAll ? 'unclaimed' : 'none-registered', extension };
}

/**
 * The config of the one dsh-lsp-stdio row a session starts from a verified `lsp` section, its
 * env templates rendered now (a missing value refuses the whole row: DSH registers all or none).
 */
export function languageServersRow(section: LspDeclarationSection, values: TemplateLookup): LspRowResult {
  return toLspStdioConfig(section, values);
}
