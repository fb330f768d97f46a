/**
 * Probe: start each MCP server of a folder exactly as DSH would, see what it offers, stop it.
 * One use case for every face (the editor's "DSH: Probe MCP Servers", `dsh-bridge probe`).
 *
 * ```ts
 * const result = await probeFolder(ports, identity);                  // never throws
 * for (const s of result.servers) s.outcome === 'ok' ? s.tools : s.message + s.stderr
 * ```
 *
 * - The row is the one the DSH plugin builds (the MCP port's buildRow: the folder's current
 *   `.vscode/mcp.json` as exported, `${input:}` values from the host store, `${env:}` and the
 *   inherited environment from `env` scrubbed by DSH's rule, the envFile, the confined cwd).
 * - Consent (`consent: 'host-store'`, the default) is the export's: nothing in trust mode
 *   `deny`; in `pinned` only servers whose current pin is approved in the host store. A face
 *   that just asked the user itself passes `consent: 'given'`. Never call it in Restricted Mode.
 * - Each server has `timeoutMs` (default 20 s) for start, initialize and the lists; it is
 *   stopped afterwards in every case, with its process group (node/probe/probeClient.ts; what escaped
 *   it is `leftRunning`). At most `concurrency` (default 2) run at once.
 * - Every text taken from a server is masked (the row's values, the host store's input values,
 *   credential-named variables, credential shapes) before it is cut, returned or stored; tool
 *   pins and token estimates are of the real definitions.
 * - A successful probe is recorded in the host store (`<dshHome>/bridge/probes/`, never the
 *   workspace) unless `record: false`; the next export signs its tool pins into the
 *   declaration while the server's launch pin is unchanged.
 * - The probe's MCP client (core/node/probe/probeClient.ts, the MCP port's probeRow) is loaded on the first probe, not before.
 * - Every tool and the server's `instructions` are scanned for hidden instructions (core/scan,
 *   through tools/toolScan.ts), as shown and stored (masked), with the folder's other servers
 *   (probed now, or recorded before) as context; a tool with an error is `withheld` from DSH
 *   unless the host store records its acceptance for this definition pin.
 */
import * as path from 'node:path';
import { analyzeFolder } from './folderSources';
import type { ProbedServerRecord } from '../node/hostStore';
import { folderAnalyzeOptions, settingLayerValues, SETTING, type FolderIdentity } from '../settings/folderSettings';
import type { DeclaredServer } from '../declaration/declarationModel';
import type { Problem } from '../problems/problems';
import type { DshEnvRule } from '../mcp/dshEnv';
import { commandBase, isCredentialName } from '../mcp/securityLint';
import { publicToolName } from '../mcp/toolNames';
import { analyzeToolChoice, choiceFor, type ToolChoiceAnalysis } from '../tools/toolChoice';
import type { Analysis } from '../mcp/analysis';
import { toolAllowed, type ToolChoice, type ToolPin } from '../declaration/toolsModel';
import { estimateToolTokens, toolNameCollisions, toolPin, type ToolNameCollision } from '../tools/toolDefinitions';
import { firstLines, secretMask } from '../tools/maskSecrets';
import { carriedInputs } from '../tools/carriedInputs';
import type { ProcessLeft, RowProbe } from '../node/probe/probeClient';
import type { ScanFinding } from '../scan/scan';
import { isToolAccepted, recordedServers, scanServers, toolScanState, type ToolScanState } from '../tools/toolScan';
import type { Ports } from './ports';

/**
 * - `ok`: started and listed.
 * - `not-found`: no server of that name in the source (`names` asked for it).
 * - `not-exported`: the server is refused by the export (its codes are in `message`).
 * - `trust-deny`, `not-approved`: no consent (trust mode `deny`; `pinned` without approval of this pin).
 * - `refused`: the row cannot be built (a missing input value, a blank command, a cwd gone).
 * - `did-not-start`, `timed-out`, `not-mcp`: the server itself (see `message` and `stderr`).
 * - `newer-mcp`: the server speaks only MCP 2026-07-28 or later, which DSH's client does not.
 * - `cancelled`: the request's signal was aborted (the server, if it ran, was stopped).
 */
export type ProbeOutcome = 'ok' | 'not-found' | 'not-exported' | 'trust-deny' | 'not-approved' | 'refused' | 'did-not-start' | 'timed-out' | 'not-mcp' | 'newer-mcp' | 'cancelled';

export interface ProbedTool {
  /** The server's raw tool name (an identifier: shown as it is). */
  name: string;
  /** The exact name DSH gives it (contract section 2). */
  publicName: string;
  /** True when another tool of this folder's servers gets the same public name (DSH then drops a whole tool set). */
  collision: boolean;
  /** Its description, secrets masked (as stored and shown; the pin is of the real one). */
  description: string;
  /** Its input schema, every string in it masked. */
  inputSchema: unknown;
  /** What the server sent beside them (masked), scanned but not pinned: DSH does not send them to the model. */
  title?: string;
  outputSchema?: unknown;
  annotations?: unknown;
  /** Estimated tokens this tool's definition adds to every request ({@link estimateToolTokens}, of the real definition). */
  tokens: number;
  /** The pin of the definition as the server listed it (what DSH compares at runtime). */
  pin: ToolPin;
  /** Whether `dsh.tools` lets DSH offer it. */
  allowed: boolean;
  /** What the scan for hidden instructions found (core/scan), in the masked texts shown here. */
  findings: ScanFinding[];
  /** `withheld`: an error-level finding, not accepted for this definition pin (DSH does not offer it). */
  scan: ToolScanState;
  /** The stored inputs whose value its real definition carries (ids; absent: none): withheld, `tool-carries-secret`. */
  carriesInputs?: string[];
}

export interface ServerProbe {
  /** Source name (the key in `.vscode/mcp.json`). */
  name: string;
  serverName?: string;
  transport?: DeclaredServer['transport'];
  /** The server's launch pin the probe ran. */
  pin?: string;
  outcome: ProbeOutcome;
  /** One English line for people (never quotes a value); for `ok`, a summary. */
  message: string;
  /** The first lines of the server's stderr, secrets masked (stdio only). */
  stderr: string[];
  /** Milliseconds from start to the answered `initialize` (`ok` only). */
  startMs?: number;
  /** Milliseconds the probe of this server took, stop included. */
  elapsedMs?: number;
  tools: ProbedTool[];
  promptCount?: number;
  resourceCount?: number;
  /** The server's `instructions` from `initialize`, masked, and their scan (absent: it sent none). */
  instructions?: string;
  instructionFindings?: ScanFinding[];
  /** Estimated tokens of the allowed tools' definitions, added to every request. */
  allowedTokens: number;
  /** The effective `dsh.tools` choice for this server (absent: every tool). */
  choice?: ToolChoice;
  /** The probe was written to the host store (the next export pins these tools). */
  recorded: boolean;
  /** The package launcher it starts through (`npx`, `uvx`, `docker run`, ...): a first start downloads the package. */
  launcher?: string;
  /**
   * Processes the server started that still ran after the probe stopped its process group and
   * what it saw the server start (Linux: they left the group before the probe saw them, e.g. a
   * double fork); their command lines masked. Absent when none (and where nothing can be seen).
   */
  leftRunning?: ProcessLeft[];
}

export interface FolderProbe {
  folder: string;
  servers: ServerProbe[];
  /** Public tool names given to more than one tool across the probed servers. */
  collisions: ToolNameCollision[];
  toolChoice: ToolChoiceAnalysis;
  /** Problems of the source analysis (as the export reports them). */
  problems: Problem[];
  /** Set when nothing could be probed at all (unreadable source, unreadable host store). */
  error?: string;
}

export interface ProbeFolderRequest extends FolderIdentity {
  /** Source names to probe; default every server of the source. */
  names?: readonly string[];
  /** Per server, for start, initialize and the lists. Default 20000. */
  timeoutMs?: number;
  /** The environment DSH would run in: `${env:}` values and what a stdio server inherits (scrubbed). Default: the ports' environment. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Whose scrubbing rule (default `rc.8`, the published line). */
  envRule?: DshEnvRule;
  /** `host-store` (default): trust mode and pinned approvals from the host store; `given`: the face obtained consent. */
  consent?: 'host-store' | 'given';
  /** Write successful probes to the host store (default true). */
  record?: boolean;
  /** At most this many servers at once (default 2). */
  concurrency?: number;
  /** Aborting stops the probe: running servers are stopped, the rest not started (`cancelled`). */
  signal?: AbortSignal;
  /**
   * Told as a server's probe starts, and as one ends while others still run: the servers being
   * probed now (source name, 1-based place) in the order they started, how many are done, the count.
   * A server never started (the probe was cancelled first) is not told.
   */
  onProgress?: (progress: ProbeProgress) => void;
  /** For tests: the probe of one row (default: the MCP port's). */
  probeRow?: Ports['mcp']['probeRow'];
  /** The servers to probe when they are not the folder's files' (the user's own: `folder` is then the user declaration's folder). */
  analysis?: Analysis;
}

export interface ProbeProgress {
  probing: ReadonlyArray<{ name: string; index: number }>;
  done: number;
  total: number;
}

const DEFAULT_PROBE_TIMEOUT_MS = 20_000;
/** For a server started through a package launcher when no timeout is given: its first start downloads the package. */
const DOWNLOAD_PROBE_TIMEOUT_MS = 120_000;

/** The package launcher a stdio row starts through, if any (a first start downloads the package). */
function packageLauncher(command: string, args: readonly string[]): string | undefined {
  const base = commandBase(command);
  if (['npx', 'bunx', 'pnpx', 'uvx'].includes(base)) return base;
  if ((base === 'uv' && args[0] === 'tool' && args[1] === 'run') || (base === 'pnpm' && args[0] === 'dlx')) return `${base} ${args[0]}`;
  if ((base === 'docker' || base === 'podman') && args[0] === 'run') return `${base} run`;
  return undefined;
}

const FAILURE_TEXT: Record<'did-not-start' | 'timed-out' | 'not-mcp' | 'newer-mcp' | 'cancelled', string> = {
  'cancelled': 'cancelled',
  'did-not-start': 'did not start',
  'timed-out': 'timed out',
  'not-mcp': 'does not speak MCP',
  'newer-mcp': 'speaks only a newer MCP than DSH',
};

function errorText(error: unknown): string {
  return String(error instanceof Error ? error.message : error);
}

/** Probes the folder's servers (see the module comment). Never throws. */
type ProbePorts = Pick<Ports, 'store' | 'files' | 'env' | 'now' | 'mcp'>;

export async function probeFolder(ports: ProbePorts, request: ProbeFolderRequest): Promise<FolderProbe> {
  const folder = path.resolve(request.folder);
  const toolChoice = analyzeToolChoice(settingLayerValues(request, SETTING.tools));
  const empty: FolderProbe = { folder, servers: [], collisions: [], toolChoice, problems: [] };
  try {
    return await probe(ports, request, folder, toolChoice);
  } catch (error) {
    return { ...empty, error: errorText(error) };
  }
}

async function probe(ports: ProbePorts, request: ProbeFolderRequest, folder: string, toolChoice: ToolChoiceAnalysis): Promise<FolderProbe> {
  const analysis = request.analysis ?? await analyzeFolder(ports, { ...folderAnalyzeOptions(request), folder });
  const result: FolderProbe = { folder, servers: [], collisions: [], toolChoice, problems: analysis.problems };
  if (!analysis.usable) {
    result.error = 'the MCP configuration cannot be used (see the problems): nothing was probed';
    return result;
  }
  const { store } = ports;
  const trust = request.consent === 'given' ? 'ask' : await store.trustMode();
  const record = await store.readFolder(folder);
  const env = request.env ?? ports.env;
  const known = [...record.inputs.values(), ...Object.entries(env).filter(([k, v]) => v !== undefined && isCredentialName(k)).map(([, v]) => v as string)];
  const wanted = request.names ? [...new Set(request.names)] : undefined;
  const cancelled = () => request.signal?.aborted === true;
  const runRow = request.probeRow ?? ports.mcp.probeRow;

  const base = (name: string, outcome: ProbeOutcome, message: string, server?: DeclaredServer): ServerProbe => ({
    name, outcome, message, stderr: [], tools: [], allowedTokens: 0, recorded: false,
    ...(server ? { serverName: server.serverName, transport: server.transport, pin: server.pin } : {}),
    ...(choiceFor(toolChoice, name) ? { choice: choiceFor(toolChoice, name) } : {}),
  });

  const jobs: Array<() => Promise<ServerProbe>> = [];
  const order: string[] = [];
  // A name exported from one file and shadowed in another is listed (and started) once.
  for (const name of wanted ?? [...new Set([...analysis.servers.map((s) => s.name), ...analysis.rejected.map((r) => r.name)])]) {
    order.push(name);
    const server = analysis.servers.find((s) => s.name === name);
    const rejected = analysis.rejected.find((r) => r.name === name);
    if (!server) {
      jobs.push(async () => rejected
        ? base(name, 'not-exported', `not exported (${rejected.codes.join(', ')}), so DSH would not start it`)
        : base(name, 'not-found', `no server "${name}" in this folder's MCP files`));
      continue;
    }
    jobs.push(async () => {
      if (cancelled()) return base(name, 'cancelled', 'cancelled before it started', server);
      if (trust === 'deny') return base(name, 'trust-deny', 'trust mode is "deny" on this machine: nothing is started', server);
      if (trust === 'pinned' && !record.approvals.some((a) => a.serverName === server.serverName && a.pin === server.pin)) {
        return base(name, 'not-approved', 'trust mode is "pinned" and this server\'s pin is not approved (approve it as for an export first)', server);
      }
      const built = await ports.mcp.buildRow(server, folder, {
        input: (id) => record.inputs.get(id),
        env: (n) => (Object.hasOwn(env, n) ? env[n] : undefined),
      });
      if (!built.ok) return base(name, 'refused', `not started: ${built.reason}`, server);
      const rowSecrets = built.row.transport === 'stdio' ? Object.values(built.row.env) : Object.values(built.row.headers);
      const masked = [...known, ...rowSecrets];
      // Every text taken from the server is masked with these before it is cut, shown or stored.
      const mask = secretMask(masked);
      const launcher = built.row.transport === 'stdio' ? packageLauncher(built.row.command, built.row.args) : undefined;
      const timeoutMs = request.timeoutMs ?? (launcher ? DOWNLOAD_PROBE_TIMEOUT_MS : DEFAULT_PROBE_TIMEOUT_MS);
      const started = ports.now();
      let probed: RowProbe;
      try {
        probed = await runRow(built.row, { timeoutMs, parentEnv: env, envRule: request.envRule, mask, ...(request.signal ? { signal: request.signal } : {}) });
      } catch (error) {
        probed = { ok: false, failure: 'did-not-start', detail: errorText(error), elapsedMs: ports.now() - started, stderr: '' };
      }
      const stderr = firstLines(probed.stderr, masked);
      const leftRunning = probed.leftRunning?.length ? { leftRunning: probed.leftRunning } : {};
      if (!probed.ok) {
        let detail = firstLines(probed.detail, masked, 1, 400)[0] ?? '';
        // A first start through a launcher downloads the package: say so, and how to get past it.
        if (probed.failure === 'timed-out' && launcher) detail += ` (it starts through ${launcher}, which may still have been downloading the package on a first start: let it finish in a terminal, or probe again)`;
        return { ...base(name, probed.failure, `${FAILURE_TEXT[probed.failure]}: ${detail}`, server), stderr, elapsedMs: ports.now() - started, ...(launcher ? { launcher } : {}), ...leftRunning };
      }
      const choice = choiceFor(toolChoice, name);
      const tools: ProbedTool[] = probed.tools.map((t) => {
        // A name is the server's text too: one that carries a value is shown and stored masked (the pin stays the real one's).
        const shownName = mask.text(t.name);
        const publicName = publicToolName(server.serverName, shownName);
        let pin: ToolPin;
        try {
          pin = toolPin(t);
        } catch {
          pin = toolPin({ name: t.name, description: t.description.toWellFormed(), inputSchema: JSON.parse(JSON.stringify(t.inputSchema ?? null)) });
        }
        const carries = carriedInputs({ name: t.name, description: t.description, schema: t.inputSchema }, [...record.inputs]);
        return {
          ...(carries.length ? { carriesInputs: carries } : {}),
          name: shownName, publicName, collision: false, description: mask.text(t.description), inputSchema: mask.json(t.inputSchema),
          ...(t.title !== undefined ? { title: mask.text(t.title) } : {}),
          ...(t.outputSchema !== undefined ? { outputSchema: mask.json(t.outputSchema) } : {}),
          ...(t.annotations !== undefined ? { annotations: mask.json(t.annotations) } : {}),
          tokens: estimateToolTokens(publicName, t), pin, allowed: toolAllowed(choice, t.name), findings: [], scan: 'clean',
        };
      });
      // A definition that carries a stored value is never offered (tool-carries-secret): it adds nothing to a request.
      const allowed = tools.filter((t) => t.allowed && !t.carriesInputs);
      return {
        ...base(name, 'ok', `${tools.length} tool${tools.length === 1 ? '' : 's'}, ${allowed.length} allowed`, server),
        stderr, startMs: probed.startMs, elapsedMs: ports.now() - started, tools,
        ...(probed.instructions !== undefined ? { instructions: mask.text(probed.instructions) } : {}),
        ...(probed.promptCount !== undefined ? { promptCount: probed.promptCount } : {}),
        ...(probed.resourceCount !== undefined ? { resourceCount: probed.resourceCount } : {}),
        ...(launcher ? { launcher } : {}),
        allowedTokens: allowed.reduce((n, t) => n + t.tokens, 0),
        ...leftRunning,
      };
    });
  }

  const results: ServerProbe[] = new Array(jobs.length);
  let next = 0;
  let done = 0;
  // The servers being probed now, in the order they started.
  const probing = new Map<number, string>();
  const tell = () => request.onProgress?.({ probing: [...probing].map(([i, name]) => ({ name, index: i + 1 })), done, total: jobs.length });
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      if (!cancelled()) {
        probing.set(i, order[i]);
        tell();
      }
      try {
        results[i] = await jobs[i]();
      } catch (error) {
        results[i] = base(order[i], 'did-not-start', `did not start: ${errorText(error)}`);
      }
      done++;
      // When no other server starts next, the ones still running are what is being probed.
      if (probing.delete(i) && probing.size && (next >= jobs.length || cancelled())) tell();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(request.concurrency ?? 2, jobs.length)) }, worker));

  const ok = results.filter((r) => r.outcome === 'ok' && r.serverName);
  result.collisions = toolNameCollisions(ok.map((r) => ({ serverName: r.serverName!, tools: r.tools.map((t) => t.name) })));
  const colliding = new Set(result.collisions.map((c) => c.publicName));
  for (const r of ok) for (const t of r.tools) t.collision = colliding.has(t.publicName);
  await scanProbed(store, folder, ok);

  if (request.record !== false && ok.length) {
    const probedAt = new Date(ports.now()).toISOString();
    const entries: Record<string, ProbedServerRecord> = {};
    for (const r of ok) {
      entries[r.serverName!] = {
        name: r.name, pin: r.pin!, probedAt, tools: r.tools.map((t) => ({
          name: t.name, description: t.description, inputSchema: t.inputSchema, pin: t.pin, ...(t.carriesInputs ? { carriesInputs: t.carriesInputs } : {}),
          ...(t.title !== undefined ? { title: t.title } : {}), ...(t.outputSchema !== undefined ? { outputSchema: t.outputSchema } : {}), ...(t.annotations !== undefined ? { annotations: t.annotations } : {}),
        })),
        ...(r.instructions !== undefined ? { instructions: r.instructions } : {}),
      };
    }
    try {
      await store.recordProbes(folder, entries);
      for (const r of ok) r.recorded = true;
    } catch (error) {
      result.error = `the probe could not be recorded in the host store (${errorText(error)})`;
    }
  }
  result.servers = results;
  return result;
}

/**
 * Scans the probed servers' tools and instructions (their masked texts), each with the folder's
 * other servers as context: those probed now, and those recorded by earlier probes. A tool with an
 * error is withheld unless the host store records its acceptance at this pin.
 */
async function scanProbed(store: ProbePorts['store'], folder: string, ok: ServerProbe[]): Promise<void> {
  if (ok.length === 0) return;
  const probedNow = new Set(ok.map((r) => r.serverName!));
  const recorded = await store.probedServers(folder).catch(() => ({} as Record<string, ProbedServerRecord>));
  const accepted = (await store.acceptedDefinitions().catch(() => undefined))?.tools ?? [];
  const servers = [
    ...ok.map((r) => ({ serverName: r.serverName!, tools: r.tools, ...(r.instructions !== undefined ? { instructions: r.instructions } : {}) })),
    ...recordedServers(recorded).filter((s) => !probedNow.has(s.serverName)),
  ];
  const scans = scanServers(servers);
  for (const r of ok) {
    const scan = scans.get(r.serverName!);
    if (!scan) continue;
    for (const t of r.tools) {
      t.findings = scan.tools.get(t.name) ?? [];
      t.scan = toolScanState(t.findings, isToolAccepted(accepted, { folder, serverName: r.serverName!, tool: t.name }, t.pin.definition));
    }
    if (r.instructions !== undefined) r.instructionFindings = scan.instructions;
  }
}
