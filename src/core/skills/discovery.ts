/**
 * Skill discovery as DSH does it for a session (`@deepseek-ai/dsh-skill-filesystem` +
 * `@deepseek-ai/dsh-skill` 0.1.0-rc.8, contract section 5): skills one level deep
 * (`<root>/<name>/SKILL.md` or `<root>/<name>.md`, entries in `localeCompare` order) in every
 * root, and the winner of each name; a skill that loses a collision gets `skill-shadowed`
 * pointing at the winner. `test/unit/core/skills/discovery.oracle.test.ts` checks kept/dropped sets and
 * winners against the real packages. File access goes through the {@link SkillFs} the caller
 * passes (`core/node/skillFs.ts` is the real file system).
 */
import * as path from 'node:path';
import type { Problem } from '../problems/problems';
import { analyzeSkillText, type SkillAnalysis } from './frontMatter';
import { hashSkillRoot, type HashOptions } from './rootPins';
import { skillProblem as problem } from './skillCodes';
import { SkillFileRefused, type SkillFs } from './skillFileAccess';
import { confinedRoot, dshSkillRoots, type SkillRoot, type SkillRootOptions } from './skillRoots';
import { scanProblems, scanSkill, type SkillScan } from './skillScan';

export interface SkillCandidate {
  /** Absolute path of the SKILL.md or flat .md file. */
  file: string;
  /** The directory entry it came from (`<name>` or `<name>.md`). */
  entry: string;
  root: SkillRoot;
  analysis: SkillAnalysis;
  /** Kept and first by (rank, discovery order) for its name: the skill DSH loads. */
  winner: boolean;
  /** For a kept skill that lost its name: the winner's file. */
  shadowedBy?: string;
  /** The scan for hidden instructions (core/scan) and the file's pin. */
  scan: SkillScan;
}

export interface SkillRootReport extends SkillRoot {
  exists: boolean;
  /** Every candidate in DSH's discovery order, dropped ones included. */
  candidates: SkillCandidate[];
  /** A listing failure other than absence (DSH then skips the whole provider). */
  error?: string;
  /** Content pin ({@link hashSkillRoot}); absent when the root does not exist or is too large to hash. */
  pin?: string;
  tooLarge?: boolean;
}

export interface SkillDiscovery {
  projectRoot: string;
  roots: SkillRootReport[];
  /** The skills DSH loads, sorted by name (code points, as dsh-skill sorts its snapshot). */
  winners: SkillCandidate[];
  /** Every problem of every candidate, shadowing included. */
  problems: Problem[];
}

export interface DiscoverOptions extends SkillRootOptions, HashOptions {
  /** Compute each existing root's content pin (default true). */
  hash?: boolean;
}

/** Candidate files of one root in DSH's order: entries by `localeCompare`, directories -> SKILL.md, `*.md` files. */
async function rootEntries(root: SkillRoot, fs: SkillFs): Promise<Array<{ entry: string; file: string }> | undefined> {
  const entries = await fs.list(root.path);
  if (entries === undefined) return undefined;
  const out: Array<{ entry: string; file: string }> = [];
  for (const entry of [...entries].sort((a, b) => a.name.localeCompare(b.name))) {
    if (root.skipSystem && entry.name === '.system') continue;
    const full = path.join(root.path, entry.name);
    if (entry.type === 'directory') out.push({ entry: entry.name, file: path.join(full, 'SKILL.md') });
    else if (entry.type === 'file' && entry.name.endsWith('.md')) out.push({ entry: entry.name, file: full });
  }
  return out;
}

/**
 * Discovers every root and skill as DSH does for a session in `options.cwd`, and decides the
 * winners: among kept skills, lowest rank first, then discovery order; later ones are shadowed.
 */
export async function discoverSkills(options: DiscoverOptions, fs: SkillFs): Promise<SkillDiscovery> {
  const { projectRoot, roots } = await dshSkillRoots(options, fs);
  const reports: SkillRootReport[] = [];
  const ordered: SkillCandidate[] = [];
  const refused: Problem[] = [];
  for (const root of roots) {
    const report: SkillRootReport = { ...root, exists: false, candidates: [] };
    reports.push(report);
    let entries;
    try {
      entries = await rootEntries(root, fs);
    } catch (error) {
      report.exists = true;
      report.error = String((error as Error)?.message ?? error);
      continue;
    }
    if (entries === undefined) continue;
    report.exists = true;
    for (const { entry, file } of entries) {
      let text: string | undefined;
      try {
        text = await fs.readText(file, { within: confinedRoot(root) });
      } catch (error) {
        if (!(error instanceof SkillFileRefused)) throw error;
        refused.push(problem('skill-unreadable', file, { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, { reason: error.message }));
        continue;
      }
      if (text === undefined) continue; // a directory without SKILL.md: DSH skips it silently
      const scan = scanSkill(text);
      const candidate: SkillCandidate = { file, entry, root, analysis: analyzeSkillText(text, file), winner: false, scan };
      candidate.analysis.problems.push(...scanProblems(text, file, scan.findings));
      report.candidates.push(candidate);
      ordered.push(candidate);
    }
    if (options.hash !== false) {
      const content = await hashSkillRoot(root, fs, options);
      if (content.pin !== undefined) report.pin = content.pin;
      if (content.tooLarge) report.tooLarge = true;
    }
  }

  // dsh-skill: a stable sort by rank (discovery order breaks ties), first of each name wins.
  const byRank = ordered.filter((c) => c.analysis.skill).sort((a, b) => a.root.rank - b.root.rank);
  const winners = new Map<string, SkillCandidate>();
  const problems: Problem[] = [];
  for (const candidate of byRank) {
    const name = candidate.analysis.skill!.name;
    const winner = winners.get(name);
    if (!winner) {
      winners.set(name, candidate);
      candidate.winner = true;
      continue;
    }
    candidate.shadowedBy = winner.file;
    candidate.analysis.problems.push(problem('skill-shadowed', candidate.file, candidate.analysis.nameRange, {
      name, kind: candidate.root.kind, rank: candidate.root.rank, winnerKind: winner.root.kind, winnerRank: winner.root.rank,
    }, [{ file: winner.file, range: winner.analysis.nameRange, message: `"${name}" in ${winner.root.path}` }]));
  }
  for (const candidate of ordered) problems.push(...candidate.analysis.problems);
  problems.push(...refused);
  const sortedWinners = [...winners.values()].sort((a, b) => {
    const x = a.analysis.skill!.name;
    const y = b.analysis.skill!.name;
    return x < y ? -1 : x > y ? 1 : 0;
  });
  return { projectRoot, roots: reports, winners: sortedWinners, problems };
}

