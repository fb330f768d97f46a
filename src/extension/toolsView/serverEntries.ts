/**
 * Where the "MCP Servers for DSH" view finds a folder's entries in `.vscode/mcp.json`: their
 * order and the range of each key (for "open entry"). The rows' states are the session plan's
 * (planView.ts). Kept free of `vscode` (test/unit/extension/toolsView/serverEntries.test.ts).
 */
import { nodeRange, parseJsonc, properties, propertyValue } from '../../core/json/jsonTree';
import { LineIndex, type Range } from '../../core/json/text';

/** The entries of `servers` in source order, each with the range of its key (for "open entry"). */
export function serverEntries(text: string): Array<{ name: string; range: Range }> {
  const { root } = parseJsonc(text);
  const lines = new LineIndex(text);
  return properties(propertyValue(root, 'servers')).map((p) => ({ name: p.key, range: nodeRange(lines, p.keyNode) }));
}
