/**
 * What the DSH plugin records of a failed start: the client's error, and for a stdio server its exit and
 * first stderr lines. rc.8's dsh-mcp-client spawns the server with stderr inherited (the host's
 * stderr, unlabelled) and keeps neither, so the first failure of a server in a session runs its
 * row once more through the probe's client (core/node/probe), which keeps both; a later failure
 * of the same server is recorded with its error only. Every text is masked (the existing masking:
 * the row's own env or header values, which carry its input values, and the credential shapes)
 * before it is kept.
 */
import type { SessionServerRecord } from '../node/sessionRecords';
import type { McpClientConfig } from '../mcp/dshRow';
import type { RowProbe } from '../node/probe/probeClient';
import { firstLines, secretMask } from '../tools/maskSecrets';
import type { Ports } from './ports';

/** How long the diagnosing run may take (a server that crashes on start stops far sooner). */
const DIAGNOSE_TIMEOUT_MS = 10_000;
/** Stderr lines kept in the record. */
const STDERR_LINES = 10;
/** An error's message and its causes' (rc.8's client wraps the first connection's error as the cause). */
function errorText(error: unknown): string {
  const said: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && depth < 4; depth++) {
    said.push(e instanceof Error ? e.message : String(e));
    e = e instanceof Error ? (e as Error & { cause?: unknown }).cause : undefined;
  }
  return said.join(': ');
}

/** The exit as the probe's failure words it: `(exit code 3)`, `(signal SIGKILL)`. */
const EXIT = /\((exit code -?\d+|signal [A-Z0-9]+)\)/;

export type StartFailure = NonNullable<SessionServerRecord['failure']>;

/** `error`: what the client's start threw; `failures`: how many times in a row it failed in this session. Never throws. */
export async function startFailure(ports: Pick<Ports, 'mcp' | 'env'>, error: unknown, row: McpClientConfig, failures: number): Promise<StartFailure> {
  const values = [...(row.transport === 'stdio' ? Object.values(row.env) : Object.values(row.headers))];
  const said = firstLines(errorText(error), values, 1, 400)[0] ?? 'failed';
  const failure: StartFailure = { error: said, stderr: [], failures };
  if (row.transport !== 'stdio' || failures > 1) return failure;
  let probed: RowProbe;
  try {
    probed = await ports.mcp.probeRow(row, { timeoutMs: DIAGNOSE_TIMEOUT_MS, parentEnv: ports.env, mask: secretMask(values) });
  } catch {
    return failure;
  }
  failure.stderr = firstLines(probed.stderr, values, STDERR_LINES);
  if (!probed.ok) {
    const exit = EXIT.exec(probed.detail)?.[1];
    if (exit) failure.exit = exit;
  }
  return failure;
}
