import type { McpClientConfig } from '../../mcp/dshRow';
import type { RowProbe, RowProbeOptions } from './probeClient';

/**
 * The probe of one row, for the ports of the CLI: the probe's MCP client is evaluated on the
 * first probe only (the bundler keeps a dynamic import lazy), and a face that never probes (the
 * DSH plugin) does not bundle it.
 */
export async function probeRowOnDemand(row: McpClientConfig, options: RowProbeOptions): Promise<RowProbe> {
  return (await import('./probeClient.js')).probeRow(row, options);
}
