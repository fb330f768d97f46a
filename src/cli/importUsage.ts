/** The import command's usage and options, apart from its code: the CLI loads that (and its TOML parser and diff) only when the command runs. */
export const IMPORT_USAGE = `import --from cursor|claude|gemini|codex [FILE...] [--to auto|.mcp.json|.vscode/mcp.json] [--dry-run] [--yes PREVIEW]
             convert another client's MCP servers into the folder's MCP file where MCP: Add Server
             would write them (--to auto, the default): the portable .mcp.json, or .vscode/mcp.json
             when the folder already has one; into .mcp.json goes what it can hold, the rest into
             .vscode/mcp.json. Shows the diff, what could not be carried, the warnings and which
             servers the export will refuse; asks before writing (without a terminal, pass --yes with the
             preview id that --dry-run printed); literal credentials become password inputs whose
             values are stored on this machine, never in the file`;

export const IMPORT_OPTIONS = { from: { type: 'string' }, to: { type: 'string' } } as const;
