import {
  applyPortableMove, MOVE_BLOCK_TEMPLATES, MOVE_HOLD_TEMPLATES, reviewPortableMove, type MoveHold, type PortableMovePlan,
} from '../core/app/portableMove';
import { portableFiles } from '../core/node/portableFiles';
import { formatMessage } from '../core/problems/problems';
import { countOf } from '../core/problems/plural';
import { visibleLine } from '../core/json/visibleText';
import { stringList, CommandUsageError, type CommandContext } from './context';
import { askYesNo, fileDiff as diffOf } from './import';
import { reviewedWriteConsent } from './consent';

const VSCODE_FILE = '.vscode/mcp.json';
const DOT_MCP_FILE = '.mcp.json';

function holdMessage(hold: MoveHold): string {
  return formatMessage(MOVE_HOLD_TEMPLATES[hold.code], hold.args);
}

function blockMessage(plan: PortableMovePlan): string {
  return plan.blocked ? formatMessage(MOVE_BLOCK_TEMPLATES[plan.blocked.code], plan.blocked.args) : '';
}

/** `dsh-bridge migrate`: the move of `.vscode/mcp.json` into `.mcp.json`, reviewed like an import. */
export async function runMigrate(ctx: CommandContext, ask: typeof askYesNo = askYesNo): Promise<number> {
  const { folder, io, json } = ctx;
  if (ctx.args.length) throw new CommandUsageError('"migrate" takes no arguments');
  const yes = stringList(ctx.options.yes);
  if (yes.length > 1) throw new CommandUsageError('"migrate" takes one --yes PREVIEW');
  const dryRun = ctx.options['dry-run'] === true;
  const ports = { portable: portableFiles };
  const review = await reviewPortableMove(ports, folder);
  if (review.outcome === 'unreadable') {
    if (json) io.out(JSON.stringify({ written: false, error: review.reason }));
    io.err(`dsh-bridge: ${review.reason}; nothing was changed.`);
    return 1;
  }
  const { plan, preview } = review;
  const summary = {
    preview,
    moved: plan.moved,
    held: plan.held.map((h) => ({ name: h.name, code: h.code, message: holdMessage(h) })),
    removesVscodeFile: plan.changed && plan.vscodeAfter === undefined,
  };
  const print = (extra: Record<string, unknown>) => {
    if (json) io.out(JSON.stringify({ ...summary, ...extra }));
  };
  if (!plan.ok) {
    const message = blockMessage(plan);
    print({ written: false, error: message });
    io.err(`dsh-bridge: ${message}`);
    return 1;
  }
  if (!json) {
    for (const d of [diffOf(DOT_MCP_FILE, plan.dotMcpBefore, plan.dotMcpAfter), diffOf(VSCODE_FILE, plan.vscodeBefore, plan.vscodeAfter)]) if (d) io.out(d);
    if (plan.held.length) {
      io.out(`\n${plan.held.length === 1 ? '1 server stays' : `${plan.held.length} servers stay`} in ${VSCODE_FILE}:`);
      for (const h of plan.held) io.out(`  ${visibleLine(`"${h.name}": ${holdMessage(h)}`)}`);
    }
    io.out(plan.changed
      ? `\n${countOf(plan.moved.length, 'server')} to move to ${DOT_MCP_FILE}${summary.removesVscodeFile ? `, then ${VSCODE_FILE} is removed` : ''} (preview ${preview}).`
      : `\nNothing to move to ${DOT_MCP_FILE}.`);
  }
  if (!plan.changed || dryRun) {
    print({ written: false });
    if (!json && dryRun && plan.changed) io.out(`Dry run: nothing was written. To apply exactly this: dsh-bridge migrate --yes ${preview}`);
    return 0;
  }
  const consent = await reviewedWriteConsent({ yes: yes[0], preview, changedSince: `${VSCODE_FILE} or ${DOT_MCP_FILE}`, question: `Move ${countOf(plan.moved.length, 'server')} to ${DOT_MCP_FILE}?`, ask, print, io, json });
  if (consent !== 'write') return consent;
  const applied = await applyPortableMove(ports, folder, plan);
  if (!applied.written) {
    print({ written: false, error: applied.message });
    io.err(`dsh-bridge: ${applied.message}; nothing was written.`);
    return 1;
  }
  print({ written: true });
  if (!json) io.out(`Moved ${countOf(plan.moved.length, 'server')} to ${DOT_MCP_FILE}${summary.removesVscodeFile ? ` and removed ${VSCODE_FILE}` : ''}. Export again: the declaration pins both files.`);
  return 0;
}
