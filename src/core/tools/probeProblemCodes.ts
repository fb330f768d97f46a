import type { Severity } from '../problems/problems';

/**
 * Problems a probe finds on a server's entry in `.vscode/mcp.json` (the editor places them on
 * the entry's key): a server that could not be probed, and a tool whose live definition differs
 * from the pin the declaration signs (DSH withholds that tool until it is re-probed and exported).
 */
export const PROBE_PROBLEM_CODES = {
  'probe-did-not-start': ['warning', 'MCP server "{server}" did not start when probed: {detail}'],
  'probe-timed-out': ['warning', 'MCP server "{server}" did not answer the probe in time: {detail}'],
  'probe-not-mcp': ['warning', 'MCP server "{server}" started but does not speak MCP: {detail}'],
  'probe-newer-mcp': ['warning', 'MCP server "{server}" speaks only a newer MCP than the client DSH uses, so DSH cannot use it: {detail}'],
  'probe-refused': ['warning', 'MCP server "{server}" was not started for the probe: {detail}'],
  'tool-changed': ['warning', 'Tool "{tool}" of "{server}" changed since the probe DSH pins ({changes}): DSH withholds it until you re-probe and export.'],
  'tool-new': ['warning', 'Tool "{tool}" of "{server}" is new since the probe DSH pins: DSH withholds it until you re-probe and export.'],
  'tool-carries-secret': ['warning', 'Tool "{tool}" of "{server}" carries the value of the stored input {inputs} in its definition: DSH withholds it, as the model would get the value with every request.'],
} as const satisfies Record<string, readonly [Severity, string]>;
export type ProbeProblemCode = keyof typeof PROBE_PROBLEM_CODES;
