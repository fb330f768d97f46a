import type { McpClientConfig } from '../../mcp/dshRow';
import type { RowProbe, RowProbeOptions } from './probeClient';

/**
 * The probe of one row, evaluated on the first probe only (the bundler keeps a dynamic import
 * lazy): the CLI's probes, and the DSH plugin's one diagnosing run of a server whose start failed
 * (dsh-plugin/failedStart.ts).
 */
export async function probeRowOnDemand(row: McpClientConfig, options: RowProbeOptions): Promise<RowProbe> {
  return (await import('./probeClient.js')).probeRow(row, options);
}
