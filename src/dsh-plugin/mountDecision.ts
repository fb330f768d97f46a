/**
 * The plugin's one mount rule, over the session plan: what it does with a server (or the
 * language servers) at a model step. The plan says what the session may get (`starts`, `asks`,
 * `withheld`); this adds only what happened in the session itself. Pure: the differential test
 * runs it over generated plans, and the plugin runs it at every step.
 */
import type { PlanOutcome } from '../core/app/plan';
import type { PlanReason } from '../core/app/planReasons';

/** What a session remembers that changes a decision (a Session implements it). */
export interface MountState {
  /** serverName -> what runs (or `lsp`). */
  readonly mounts: ReadonlyMap<string, { pin: string }>;
  readonly starting: ReadonlyMap<string, { pin: string }>;
  /** `name pin` keys the user rejected in this session. */
  readonly rejected: ReadonlySet<string>;
  /** `name pin` keys the user allowed once in this session. */
  readonly allowed: ReadonlySet<string>;
  /** `name pin` -> a failed start, with the declaration it failed under and when it may be tried again. */
  readonly failed: ReadonlyMap<string, { digest: string; retryAt?: number }>;
  /** `name pin` -> the turn whose question got no answer. */
  readonly unanswered: ReadonlyMap<string, string>;
}

export type MountDecision =
  /** Start it now: approved, or allowed once earlier in this session. */
  | { kind: 'start' }
  /** Ask DSH's in-turn approval, then start it if allowed. */
  | { kind: 'ask' }
  /** The plan withholds it: say why, once. */
  | { kind: 'withheld'; reason: PlanReason }
  /** Nothing to do at this step. */
  | { kind: 'skip'; why: 'running' | 'rejected' | 'failed' | 'unanswered' };

export interface StepFacts {
  /** The digest of the declaration planned from (a failed start is tried again under a new one). */
  digest: string;
  turn: string;
  now: number;
}

/** The decision for one planned entry (`name`: a serverName, or the language servers' approval name). */
export function decideMount(entry: { name: string; pin: string; outcome: PlanOutcome; reason: PlanReason }, state: MountState, at: StepFacts): MountDecision {
  if (state.mounts.has(entry.name) || state.starting.has(entry.name)) return { kind: 'skip', why: 'running' };
  if (entry.outcome === 'withheld') return { kind: 'withheld', reason: entry.reason };
  const key = `${entry.name} ${entry.pin}`;
  if (state.rejected.has(key)) return { kind: 'skip', why: 'rejected' };
  // A failed start is not asked about and spawned again at every model step: only once its
  // backoff (the row's reconnect settings) ran out, or for a new declaration or pin.
  const failure = state.failed.get(key);
  if (failure?.digest === at.digest && (failure.retryAt === undefined || at.now < failure.retryAt)) return { kind: 'skip', why: 'failed' };
  if (state.unanswered.get(key) === at.turn) return { kind: 'skip', why: 'unanswered' };
  return entry.outcome === 'starts' || state.allowed.has(key) ? { kind: 'start' } : { kind: 'ask' };
}
