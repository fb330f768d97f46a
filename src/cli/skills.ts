import * as path from 'node:path';
import { planSession } from '../core/app/plan';
import { shortPin } from '../core/app/approve';
import { planFix, planMessage } from '../core/app/planReasons';
import { formatMessage } from '../core/problems/problems';
import type { GatedSkillRoot, SkillGateResult } from '../core/skills/skillGate';
import type { ScanFinding } from '../core/scan/scan';
import { acceptReviewedSkill, trustReviewedSkillRoot } from '../core/app/skillConsent';
import { CommandFailure, CommandUsageError, type CliIo, type CommandContext } from './context';
import { visibleLine } from '../core/json/visibleText';
import { table } from './table';
import { findingCounts, findingLines } from './findings';
import { pinConsent } from './consent';

export const SKILLS_USAGE = [
  'skills   Skill-root trust on this machine (what DSH sessions in the folder load):',
  '           skills list              roots, their skills, pin and trust',
  '           skills trust <root>      show the root\'s skills and pin, then trust that pin (--pin PIN: only if unchanged);',
  '                                    a relative root is in the workspace folder, e.g. .dsh/skills',
  '           skills distrust <root>   forget the trust of a root',
  '           skills accept <SKILL.md> accept a skill withheld for its scan findings (--pin PIN: only if unchanged; a relative path is in the folder)',
  '           trust and accept ask on a terminal; without one they need --pin',
].join('\n  ');


/**
 * The skill roots a DSH session in the folder reads, as the session plan has them (gated as the
 * DSH plugin gates them): project and user roots, and the custom roots the editor exported into
 * the declaration the session finds. Every root is pinned, so the list shows each pin.
 */
async function folderSkills(ctx: CommandContext): Promise<SkillGateResult> {
  const { plan, skillGate } = await planSession(ctx.ports, { cwd: ctx.folder, tools: false, pinEverySkillRoot: true });
  if (!skillGate) throw new CommandFailure(plan.skills?.error ? planMessage(plan.skills.error, formatMessage) : 'the skill roots could not be read');
  return skillGate;
}

const GATE_WORDS = { trusted: 'trusted', untrusted: 'not trusted', changed: 'changed since trusted', 'not-gated': 'not gated (your own)' } as const;

/** Every kept skill whose scan found something: those with an error (withheld or accepted), then those with warnings only (loaded). */
function scannedSkills(result: SkillGateResult) {
  return [...result.scanned, ...result.warned.map((candidate) => ({ candidate, gate: 'warning' as const }))].map(({ candidate: c, gate }) => ({
    name: c.analysis.skill!.name,
    file: c.file,
    pin: c.scan.pin,
    state: gate,
    findings: c.scan.findings,
  }));
}

function skillRootsJson(result: SkillGateResult) {
  return {
    roots: result.roots.map((r) => ({ path: r.path, kind: r.kind, trust: r.gate, pin: r.pin ?? null, recordedPin: r.recordedPin ?? null, skills: r.skills })),
    withheld: result.shadows.map((s) => ({ name: s.name, root: s.withheldRoot, why: s.why, offeredFrom: s.fallback?.root.path ?? null })),
    scanned: scannedSkills(result),
  };
}

export function printSkillGate(result: SkillGateResult, io: CliIo, indent = '', folder = '.'): void {
  if (!result.roots.length) {
    io.out(`${indent}Skills:           no skill root exists`);
    return;
  }
  io.out(`${indent}Skills:`);
  io.out(table([['ROOT', 'KIND', 'TRUST', 'PIN', 'SKILLS'], ...result.roots.map((r) => [
    r.path, r.kind, GATE_WORDS[r.gate], r.pin ? shortPin(r.pin) : r.tooLarge ? 'too large' : '-', r.skills.join(', ') || '-',
  ])]).split('\n').map((l) => `${indent}  ${l}`).join('\n')); // table() escapes every cell
  for (const s of result.shadows) {
    const why = s.why === 'scan' ? ` (its scan: see below)` : '';
    io.out(`${indent}  ${visibleLine(`withheld: "${s.name}" from ${s.withheldRoot}${why}${s.fallback ? ` (offered instead from ${s.fallback.root.path})` : ''}`)}`);
  }
  for (const skill of scannedSkills(result)) {
    const verdict = skill.state === 'withheld' ? `withheld from DSH sessions until you accept this content: ${planFix('skills-accept', { file: skill.file, pin: skill.pin, workspace: folder }).command}`
      : skill.state === 'accepted' ? `loaded: you accepted this content (pin ${skill.pin})` : 'loaded (warnings do not withhold a skill)';
    io.out(`${indent}  ${visibleLine(`skill "${skill.name}" (${skill.file}): ${findingCounts(skill.findings)}; ${verdict}`)}`);
    for (const f of skill.findings) for (const line of findingLines(f, `${indent}    `)) io.out(line);
  }
}

/** A root as given: a relative one is the workspace folder's (`.dsh/skills`), wherever the CLI runs. */
function rootPath(folder: string, given: string): string {
  return path.resolve(folder, given);
}

/** The one path `skills accept|trust` takes (against the folder) and the pin the user reviewed (`--pin`), if given. */
function reviewedTarget(ctx: CommandContext, usage: string): { target: string; expectedPin?: string } {
  if (ctx.args.length !== 2) throw new CommandUsageError(usage);
  return { target: rootPath(ctx.folder, ctx.args[1]), expectedPin: typeof ctx.options.pin === 'string' ? ctx.options.pin : undefined };
}

/** `dsh-bridge skills list | trust <root> | distrust <root>` on the host store the DSH plugin reads. */
export async function runSkills(ctx: CommandContext, input: NodeJS.ReadStream = process.stdin): Promise<number> {
  const { folder, json, io } = ctx;
  const [sub, ...args] = ctx.args;
  const { store } = ctx.ports;
  switch (sub) {
    case 'list': {
      if (args.length) throw new CommandUsageError('"skills list" takes no argument');
      const result = await folderSkills(ctx);
      if (json) io.out(JSON.stringify(skillRootsJson(result)));
      else printSkillGate(result, io, '', folder);
      return 0;
    }
    case 'accept': {
      const { target, expectedPin } = reviewedTarget(ctx, '"skills accept" takes the SKILL.md to accept (see "skills list")');
      const consent = pinConsent<{ name: string; file: string; pin: string; findings: ScanFinding[] }>(ctx, input, (review) => {
        if (json) return;
        io.out(visibleLine(`Skill "${review.name}" (${review.file}), pin ${review.pin}`));
        io.out(`  ${findingCounts(review.findings)}:`);
        for (const f of review.findings) for (const line of findingLines(f, '    ')) io.out(line);
      }, (review) => visibleLine(`Accept this content of "${review.name}" for DSH sessions?`),
      (review) => planFix('skills-accept', { file: review.file, pin: review.pin, workspace: folder }).command);
      const acceptance = await acceptReviewedSkill(ctx.ports, await folderSkills(ctx), target, expectedPin, consent.ask).finally(consent.close);
      if (acceptance.outcome === 'no-skill') {
        io.err(`dsh-bridge: ${target} is not a skill withheld for its scan findings in the skill roots of ${folder} (see "dsh-bridge skills list").`);
        return 1;
      }
      if (acceptance.outcome === 'pin-changed') {
        io.err(`dsh-bridge: ${target} has pin ${acceptance.pin} now, not ${expectedPin ?? 'the one listed'}: it changed since you reviewed it; nothing was accepted.`);
        return 1;
      }
      if (acceptance.outcome === 'declined') {
        if (json) io.out(JSON.stringify({ accepted: null, file: target, pin: acceptance.pin, findings: acceptance.findings, error: 'not accepted: no --pin, and no terminal to ask (or the answer was no)' }));
        else io.out('Not accepted.');
        return 1;
      }
      if (json) io.out(JSON.stringify({ accepted: { file: target, pin: acceptance.pin }, findings: acceptance.findings }));
      else io.out('Accepted: DSH sessions load this skill while its SKILL.md keeps this content (any change withholds it again).');
      return 0;
    }
    case 'trust': {
      const { target, expectedPin } = reviewedTarget(ctx, '"skills trust" takes the root to trust (see "skills list")');
      const consent = pinConsent<{ root: GatedSkillRoot; pin: string }>(ctx, input, (review) => {
        if (json) return;
        io.out(`Skill root ${target} (${review.root.kind})`);
        io.out(`  skills: ${visibleLine(review.root.skills.join(', ') || 'none')}`);
        io.out(`  pin:    ${review.pin}`);
      }, () => 'Trust this root\'s skills for DSH sessions (DSH gives them to the model as trusted instructions)?',
      (review) => `${planFix('skills-trust', { root: target, workspace: folder }).command} --pin ${review.pin}`);
      const trust = await trustReviewedSkillRoot(ctx.ports, await folderSkills(ctx), target, expectedPin, consent.ask).finally(consent.close);
      switch (trust.outcome) {
        case 'no-root':
          io.err(`dsh-bridge: ${target} is not a skill root of ${folder} (see "dsh-bridge skills list").`);
          return 1;
        case 'not-gated':
          io.err(`dsh-bridge: ${target} is your own ${trust.root.kind} root: it is not gated and needs no trust.`);
          return 1;
        case 'cannot-pin':
          io.err(`dsh-bridge: ${target} is too large to pin (more than 10000 files or 64 MiB), so it cannot be trusted.`);
          return 1;
        case 'pin-changed':
          io.err(`dsh-bridge: ${target} has pin ${trust.pin ?? 'none'} now, not ${expectedPin ?? 'the one listed'}: it changed since you reviewed it; nothing was trusted.`);
          return 1;
        case 'declined':
          if (json) io.out(JSON.stringify({ trusted: null, root: target, pin: trust.pin, error: 'not trusted: no --pin, and no terminal to ask (or the answer was no)' }));
          else io.out('Not trusted.');
          return 1;
      }
      const { root, pin } = trust;
      if (json) {
        io.out(JSON.stringify({ trusted: target, kind: root.kind, pin, skills: root.skills }));
      } else {
        io.out('Trusted: DSH sessions load its skills while its content keeps this pin (any change withholds them until you trust it again).');
      }
      return 0;
    }
    case 'distrust': {
      if (args.length !== 1) throw new CommandUsageError('"skills distrust" takes the root to forget');
      const target = rootPath(folder, args[0]);
      const had = Object.hasOwn(await store.skillTrust(), target);
      if (had) await store.distrustSkillRoot(target);
      if (json) io.out(JSON.stringify({ distrusted: target, wasTrusted: had }));
      else io.out(had ? `Skill root ${target} is no longer trusted: DSH sessions withhold its skills.` : `Skill root ${target} was not trusted; nothing changed.`);
      return 0;
    }
    default:
      throw new CommandUsageError('"skills" needs one of: list, trust <root>, distrust <root>, accept <SKILL.md>');
  }
}
