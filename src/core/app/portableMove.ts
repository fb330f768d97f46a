/**
 * The move of `.vscode/mcp.json` into the portable `.mcp.json`, the same for every face:
 * {@link reviewPortableMove} reads both files and plans the move (core/mcp/portableMove.ts), the
 * face shows both changes and what stays behind, {@link applyPortableMove} writes exactly what
 * was reviewed, only while both files still hold what was read. Never throws.
 */
import {
  MOVE_BLOCK_TEMPLATES, MOVE_HOLD_TEMPLATES, planPortableMove, portableMovePreviewId, type MoveBlockCode, type MoveHold, type MoveHoldCode, type PortableMovePlan,
} from '../mcp/portableMove';
import type { PortableWriteResult } from '../node/portableFiles';
import type { PortableFilePort } from './ports';

export { MOVE_BLOCK_TEMPLATES, MOVE_HOLD_TEMPLATES, portableMovePreviewId };
export type { MoveBlockCode, MoveHold, MoveHoldCode, PortableMovePlan, PortableWriteResult };

export type PortableMoveReview =
  /** A file cannot be read (`reason`): nothing was planned. */
  | { outcome: 'unreadable'; reason: string }
  | { outcome: 'planned'; plan: PortableMovePlan; preview: string };

export async function reviewPortableMove(ports: { portable: PortableFilePort }, folder: string): Promise<PortableMoveReview> {
  try {
    const pair = await ports.portable.readPair(folder);
    if ('reason' in pair) return { outcome: 'unreadable', reason: pair.reason };
    const plan = planPortableMove(pair.vscode, pair.dotMcp);
    return { outcome: 'planned', plan, preview: portableMovePreviewId(plan) };
  } catch (error) {
    return { outcome: 'unreadable', reason: error instanceof Error ? error.message : String(error) };
  }
}

/** Writes the reviewed plan (nothing when it has nothing to write). Never throws: a failure is a result. */
export async function applyPortableMove(ports: { portable: PortableFilePort }, folder: string, plan: PortableMovePlan): Promise<PortableWriteResult> {
  if (!plan.ok || !plan.changed) return { written: false, reason: 'refused', message: 'nothing to write' };
  try {
    return await ports.portable.writePair(folder, plan);
  } catch (error) {
    return { written: false, reason: 'refused', message: error instanceof Error ? error.message : String(error) };
  }
}
