/**
 * A SKILL.md's scan for hidden instructions (core/scan): its text, front matter and body, and the
 * front matter as DSH reads it; the file's pin an acceptance binds to; the findings as problems.
 */
import { createHash } from 'node:crypto';
import { formatMessage, type Problem } from '../problems/problems';
import { LineIndex } from '../json/text';
import { scanSkillText, type ScanFinding } from '../scan/scan';
import { SCAN_CODES } from '../scan/scanCodes';
import { frontMatterEscapes } from './frontMatter';

/** The scan of a SKILL.md's text, each finding with its line. Never throws. */
export function scanSkillFile(raw: string): ScanFinding[] {
  let escapes: Array<{ value: string; start: number; end: number }> = [];
  try {
    escapes = frontMatterEscapes(raw);
  } catch {
    // YAML DSH cannot read either: the file's text is scanned as it is
  }
  const findings = scanSkillText(raw, escapes);
  const lines = findings.length ? new LineIndex(raw) : undefined;
  return findings.map((f) => ({ ...f, line: lines!.positionAt(f.start).line + 1 }));
}

/** A skill file's scan and its pin: what an acceptance binds to (`sha256:` + hex of its text as UTF-8). */
export interface SkillScan {
  findings: ScanFinding[];
  pin: string;
}

/** Scans of recent texts: the DSH plugin discovers the skills at every model step, and a SKILL.md rarely changes. */
const scanCache = new Map<string, SkillScan>();
const SCAN_CACHE_SIZE = 256;

export function scanSkill(raw: string): SkillScan {
  const hit = scanCache.get(raw);
  if (hit) return hit;
  const scan = { findings: scanSkillFile(raw), pin: `sha256:${createHash('sha256').update(raw, 'utf8').digest('hex')}` };
  if (scanCache.size >= SCAN_CACHE_SIZE) scanCache.delete(scanCache.keys().next().value!);
  scanCache.set(raw, scan);
  return scan;
}

/** A skill file's findings as problems on the file, at their exact range. */
export function scanProblems(raw: string, file: string, findings: readonly ScanFinding[]): Problem[] {
  if (findings.length === 0) return [];
  const lines = new LineIndex(raw);
  return findings.map((f) => {
    const [severity, template] = SCAN_CODES[f.code];
    return { code: f.code, severity, message: formatMessage(template, f.args), args: f.args, file, range: lines.rangeAt(f.start, f.end - f.start) };
  });
}
