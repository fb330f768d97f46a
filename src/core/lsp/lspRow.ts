/** The one `@deepseek-ai/dsh-lsp-stdio` row that runs every language server, and how a reviewer reads it. */
import type { DeclaredLspServer, LspDeclarationSection } from '../declaration/declarationModel';
import { shellQuote } from '../mcp/launchReview';
import { renderTemplate, type TemplateLookup } from '../declaration/template';
import type { LspServerConfig } from './lspModel';
import { visibleLine } from '../json/visibleText';

/** The name under which the host store records the approved pin of a folder's `lsp` section (never an MCP serverName: `$` is not allowed there). */
export const LSP_APPROVAL_NAME = '$lsp';

/** One server of the row as dsh-lsp-stdio takes it: the same shape the editor validates. */
export type LspStdioServer = LspServerConfig;

export type LspRowResult =
  | { ok: true; config: { servers: Record<string, LspStdioServer> } }
  | { ok: false; reason: string; missing?: { kind: 'input' | 'env'; name: string } };

/**
 * The DSH side's rendering of a verified `lsp` section into the config of one
 * `@deepseek-ai/dsh-lsp-stdio` instance (contract section 4): env templates resolved (a
 * credential-named variable is a reference to the DSH process environment), every other field
 * as declared. A missing variable refuses the whole row: dsh-lsp-stdio registers all or nothing.
 */
export function toLspStdioConfig(section: LspDeclarationSection, lookup: TemplateLookup): LspRowResult {
  const servers: Record<string, LspStdioServer> = {};
  for (const [id, server] of Object.entries(section.servers)) {
    const env: Record<string, string> = {};
    for (const [name, template] of Object.entries(server.env)) {
      const rendered = renderTemplate(template, lookup);
      if ('missing' in rendered) {
        const what = rendered.missing.kind === 'env' ? `the environment variable ${rendered.missing.name}, which is not set in the DSH process` : `input "${rendered.missing.name}", which has no stored value`;
        return { ok: false, reason: `language server "${id}" needs ${what} (for its env ${name})`, missing: rendered.missing };
      }
      Object.defineProperty(env, name, { value: rendered.value, enumerable: true, writable: true, configurable: true });
    }
    Object.defineProperty(servers, id, {
      value: {
        command: server.command,
        args: [...server.args],
        env,
        extensionToLanguage: { ...server.extensionToLanguage },
        initializationOptions: server.initializationOptions ?? null,
        configuration: server.configuration ?? null,
        maxMessageBytes: server.maxMessageBytes,
        maxStderrBytes: server.maxStderrBytes,
        maxDocumentBytes: server.maxDocumentBytes,
        shutdownTimeoutMs: server.shutdownTimeoutMs,
        killGraceMs: server.killGraceMs,
      },
      enumerable: true, writable: true, configurable: true,
    });
  }
  return { ok: true, config: { servers } };
}

/** The exact command line of a language server as a reviewer reads it (each argument quoted for a POSIX shell when needed, hidden characters escaped). */
export function lspLaunchLine(server: Pick<DeclaredLspServer, 'command' | 'args'>): string {
  return visibleLine([server.command, ...server.args].map((a) => shellQuote(a)).join(' '));
}

/** The review of a declaration's language servers (one dsh-lsp-stdio row: one pin covers all), as `reviewLines` words it. */
export function lspReviewLines(section: LspDeclarationSection): string[] {
  const lines = ['Language servers (one dsh-lsp-stdio row; each starts on the first query for its files)'];
  for (const [id, server] of Object.entries(section.servers)) {
    lines.push(`  ${visibleLine(`"${id}" for ${Object.keys(server.extensionToLanguage).join(', ')}`)}: it will run on this computer with your user's privileges:`);
    lines.push(`    ${lspLaunchLine(server)}`);
    lines.push(`    Environment variables (names only): ${visibleLine(Object.keys(server.env).join(', ')) || 'none'}`);
  }
  lines.push(`  Pin: ${section.pin}`);
  return lines;
}

/** Whether DSH would register the section's servers (a section with an invalid entry registers none). */
export function lspSectionUsable(section: LspDeclarationSection | undefined): section is LspDeclarationSection {
  return section !== undefined && section.registersAll && Object.keys(section.servers).length > 0;
}

/** `ts (.ts, .tsx)`-style summary of the section's servers, for approval prompts and logs (no command lines, no env; shown on one line). */
export function describeLspServers(section: LspDeclarationSection): string {
  return visibleLine(Object.entries(section.servers)
    .map(([id, s]) => `"${id}" (${Object.keys(s.extensionToLanguage).join(', ')})`)
    .join(', '));
}
