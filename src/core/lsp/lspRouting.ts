/** Which language server DSH sends a file to: dsh-lsp routes by the final extension of its name. */
import type { LspServerConfig } from './lspModel';

/** dsh-lsp's key normalization: lowercase, then a leading dot if there is none. */
export function normalizeLspExtension(extension: string): string {
  const lower = extension.toLowerCase();
  return lower.startsWith('.') ? lower : `.${lower}`;
}

/**
 * DSH's routing key of a file: the final extension of the basename, lowercased, with its dot
 * (`foo.d.ts` -> `.ts`, `archive.tar.GZ` -> `.gz`); `''` for no extension or a dotfile
 * (`Makefile`, `.bashrc`). Both `/` and `\` separate path segments.
 */
export function finalExtension(fileName: string): string {
  const lastSlash = Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\'));
  const base = lastSlash >= 0 ? fileName.slice(lastSlash + 1) : fileName;
  const dot = base.lastIndexOf('.');
  if (dot <= 0) return '';
  return base.slice(dot).toLowerCase();
}

export interface LspRoute {
  providerId: string;
  languageId: string;
  /** The routing key that matched, e.g. `.ts`. */
  extension: string;
}

/** Which server DSH sends a file to, by {@link finalExtension}; `undefined` when none claims it. */
export function lspServerFor(fileName: string, servers: Readonly<Record<string, Pick<LspServerConfig, 'extensionToLanguage'>>>): LspRoute | undefined {
  const extension = finalExtension(fileName);
  if (extension === '') return undefined;
  for (const [providerId, server] of Object.entries(servers)) {
    for (const [raw, languageId] of Object.entries(server.extensionToLanguage)) {
      if (normalizeLspExtension(raw) === extension) return { providerId, languageId, extension };
    }
  }
  return undefined;
}
