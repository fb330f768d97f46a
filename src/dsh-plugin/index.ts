/**
 * DSH Bridge, DSH side: a cordis plugin for DeepSeek Harness (DSH) that mounts a workspace's
 * signed `.dsh/declaration.json` into that workspace's sessions only. Shipped as the DSH bundle
 * `packages/dsh-bridge-dsh` (CommonJS, bundled; no runtime dependency on `@deepseek-ai/*`:
 * the host's own dsh-mcp-client is obtained through its loader at run time).
 */
import { visibleLine } from '../core/json/visibleText';
import * as os from 'node:os';
import { resolveDshHome } from '../core/node/hostStore';
import { nodePorts } from '../core/node/ports';
import { probeRowOnDemand } from '../core/node/probe/probeOnDemand';
import { journaledEnv } from '../core/node/readJournal';
import { Bridge, type BridgeBookkeeping } from './bridge';
import { HEADLESS_START_WAIT_MS, startConcurrency, startWaitMs } from './startPolicy';
import type { Ctx, Logger } from './types';

export interface Config {
  /** The DSH home holding the bridge store (`<dshHome>/bridge/`); default $DSH_HOME, else ~/.dsh. */
  dshHome?: string;
  /**
   * Enforce skill-root trust (default true): project (`.dsh/skills`, `.agents/skills`) and custom
   * skill roots reach a session only when trusted on this machine at their current content.
   */
  gateSkillRoots?: boolean;
  /**
   * How long (ms) a model step's request waits for the MCP servers starting in that step
   * (default 3000). Servers start in parallel; the ones up by then are in the request, the others
   * join the request of the first step after they are up. 0 = never wait.
   */
  startWaitMs?: number;
  /**
   * How long (ms) a headless run's request (dsh-headless: one request, no one to answer) waits for
   * the MCP servers starting in its step (default 60000, the MCP SDK's initialize timeout). A
   * server still starting then is said on stderr; the run goes on without it.
   */
  headlessStartWaitMs?: number;
  /** false: start servers one after another, each waited for in full (the behaviour before startWaitMs). Default true. */
  parallelStart?: boolean;
  /**
   * At most this many MCP server starts at a time in this DSH process, all sessions together
   * (default: twice the CPUs, at least 4); the others queue. A start holds its slot until the
   * server is up or failed, at most 1 s, so a slow server does not hold back the ones behind it.
   */
  startConcurrency?: number;
}

export const name = 'dsh-bridge';
/** Services needed to see sessions and tools; approval and loader are looked up when used. */
export const inject = ['agents', 'systemPrompt', 'tools'];

/** The plugin instances loaded in this process (one per Loader row). */
const live = new Set<Bridge>();

/** What each loaded instance holds now (sessions, skill-gate sessions, dsh-mcp-client slots and copies): a diagnostic. */
export function bookkeeping(): BridgeBookkeeping[] {
  return [...live].map((bridge) => bridge.bookkeeping());
}

export function apply(ctx: Ctx, config: Config | undefined): void {
  const logger = typeof ctx.logger === 'function' ? (ctx.logger as unknown as (name: string) => Logger)('dsh-bridge') : ctx.logger;
  // A headless run (dsh-headless provides `headlessStartup`) prints no DSH log: its refusals go to stderr too.
  const headless = () => ctx.get('headlessStartup') !== undefined;
  const notice = (line: string) => {
    if (headless()) process.stderr.write(`${line}\n`);
  };
  // The use cases' ports, built once: the host store of the DSH home, DSH's own environment (`${env:}`).
  // The environment read through a journaled view: a kept session plan knows which variables it read (core/node/keptWhileUnchanged.ts).
  // The probe's client runs a server whose start failed once more, for its exit and stderr (failedStart.ts).
  const ports = nodePorts({ dshHome: resolveDshHome(config?.dshHome), env: journaledEnv(process.env), probeRow: probeRowOnDemand, log: (line) => logger.info(visibleLine(`dsh-bridge: ${line}`)) });
  const bridge = new Bridge(ctx, ports, {
    gateSkillRoots: config?.gateSkillRoots !== false, notice,
    startWaitMs: startWaitMs(config?.startWaitMs), headless,
    headlessStartWaitMs: startWaitMs(config?.headlessStartWaitMs, HEADLESS_START_WAIT_MS), parallelStart: config?.parallelStart !== false,
    startConcurrency: startConcurrency(config?.startConcurrency, os.availableParallelism()),
  }, logger);
  bridge.start();
  live.add(bridge);
  ctx.effect(() => () => {
    live.delete(bridge);
    return bridge.stop();
  }, 'dsh-bridge');
}
