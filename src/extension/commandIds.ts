/**
 * Every command the extension registers, by id. The composition root registers each of them
 * once, at activation, through the one guard of the command table (commands.ts), which must have
 * a handler for each (the type says so). Kept free of imports: activation loads nothing else.
 */
export const COMMAND = {
  export: 'dsh.exportMcpServers',
  /** The user's own servers (profile mcp.json, Copilot Global) into the user declaration. */
  exportUserServers: 'dsh.exportUserServers',
  enterInputValues: 'dsh.enterInputValues',
  forgetInputValues: 'dsh.forgetInputValues',
  openDeclaration: 'dsh.openDeclaration',
  verifyDeclaration: 'dsh.verifyDeclaration',
  showLogs: 'dsh.showLogs',
  doctor: 'dsh.doctor',
  whichLanguageServer: 'dsh.whichLanguageServer',
  reviewSkillRoots: 'dsh.reviewSkillRoots',
  /** The "MCP Servers for DSH" view's actions (hidden from the palette). */
  openServerEntry: 'dsh.openServerEntry',
  exportFromView: 'dsh.exportFromView',
  refreshServersView: 'dsh.refreshServersView',
  probeMcpServers: 'dsh.probeMcpServers',
  importMcpServers: 'dsh.importMcpServers',
  moveToPortableFile: 'dsh.moveToPortableFile',
  /** The walkthrough's last step: the commands that install DSH and the plugin. */
  installDshSide: 'dsh.installDshSide',
  /** Internal: the drift quick fix (probe the server again, then export). */
  reprobeAndAccept: 'dsh.reprobeAndAccept',
  /** A withheld tool's row: accept its definition despite its scan findings. */
  acceptToolDefinition: 'dsh.acceptToolDefinition',
  /** Internal: a fix of the doctor's report (its button), run with the editor's own command. */
  runDoctorFix: 'dsh.runDoctorFix',
} as const;

export type CommandId = (typeof COMMAND)[keyof typeof COMMAND];

export const COMMAND_IDS: readonly CommandId[] = Object.values(COMMAND);

/** The "MCP Servers for DSH" view (package.json contributes it). */
export const SERVERS_VIEW_ID = 'dsh.mcpServers';
