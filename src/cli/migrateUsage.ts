/** The migrate command's usage, apart from its code: the CLI loads that (and its diff) only when the command runs. */
export const MIGRATE_USAGE = `migrate  [--dry-run] [--yes PREVIEW]
             move the servers of .vscode/mcp.json into the portable .mcp.json (where MCP: Add
             Server writes since VS Code 1.140), comments kept; shows both diffs and what must
             stay in .vscode/mcp.json and why (inputs, variables, cwd, envFile, sse, ...); asks
             before writing (without a terminal, pass --yes with the preview id of --dry-run)`;
