// The row builder lives in the core (core/node/mcpRow.ts): the probe starts servers from the same rows.
export { buildRow, type McpRow, type RowResult } from '../core/node/mcpRow';
