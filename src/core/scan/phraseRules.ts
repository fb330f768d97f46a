/** The phrase rules of each class (override, secrecy, preconditions, credential files, exfiltration) and their findings. */
import { quoted, type FindingSink, type Place } from './findingSpans';
import { MAX_SPANS, phraseSpans, type PhraseRule, type TextHits } from './phraseMatch';
import { SCAN_CODES, type ScanCode } from './scanCodes';
import type { ScanTarget } from './scanTypes';
import { URL_PLACEHOLDER } from './phraseClasses';

/** A home path given as an example, or of a placeholder user: how a path is written, not a path of yours. */
const EXAMPLE_BEFORE = /\b(?:e\.g\.|i\.e\.|for\s+example|for\s+instance|such\s+as|like)[^.\n]*$|\bexamples?:?\s*[\x60'"(]*$|→\s*[\x60'"]?$/i;
const PLACEHOLDER_HOME = /^(?:~\/\.*|(?:\/home\/|\/Users\/|[A-Za-z]:\\Users\\)(?:user|username|me|you|your[\w-]*|name|example|john|jane)(?:[\\/].*)?)$/i;

const ALL: readonly ScanTarget[] = ['tool', 'instructions', 'skill'];
const SERVER: readonly ScanTarget[] = ['tool', 'instructions'];

const PHRASE_RULES: readonly PhraseRule[] = [
  { code: 'instruction-override', targets: ALL, seq: ['override'] },
  { code: 'secrecy-request', targets: ALL, seq: ['secrecyNeg', 'disclose', 'audience'], within: 120 },
  { code: 'secrecy-request', targets: ALL, seq: ['secrecyNeg', 'discloseThat'], within: 40 },
  { code: 'secrecy-request', targets: ALL, seq: ['secretKeep'] },
  { code: 'role-tag', targets: ALL, seq: ['roleTag'] },
  { code: 'instruction-tag', targets: ALL, seq: ['tag'] },
  { code: 'precondition-instruction', targets: SERVER, seq: ['beforeTool', 'action'], within: 160 },
  { code: 'addressed-to-model', targets: SERVER, seq: ['addressed'] },
  { code: 'read-sensitive-file', targets: ALL, seq: ['readVerb', 'sensitive'], within: 120, negBefore: 0 },
  { code: 'read-sensitive-file', targets: SERVER, seq: ['readVerb', 'clientFile'], within: 120, negBefore: 0 },
  { code: 'read-sensitive-file', targets: SERVER, seq: ['clientFile', 'readPassive'], within: 60, negBefore: 1 },
  { code: 'read-sensitive-file', targets: ALL, seq: ['sensitive', 'readPassive'], within: 60, negBefore: 1 },
  { code: 'exfiltration', targets: SERVER, seq: ['passVerb', 'sink'], within: 160, negBefore: 0, also: ['secretNoun', 'sensitive', 'clientFile'] },
  { code: 'exfiltration', targets: ['skill'], seq: ['passVerb', 'sink'], within: 160, negBefore: 0, also: ['skillSecret', 'sensitive'] },
  { code: 'hidden-comment', targets: ALL, seq: ['commentOpen', 'modelWord'], within: 160 },
  { code: 'pipe-to-shell', targets: ALL, seq: ['pipeShell'] },
  { code: 'decode-and-follow', targets: ALL, seq: ['decodeVerb', 'followVerb'], within: 80 },
  { code: 'exfiltration', targets: ALL, seq: ['markdownData'] },
  { code: 'exfiltration', targets: ALL, seq: ['dnsPlaceholder'] },
  { code: 'sensitive-file', targets: ALL, seq: ['sensitive'] },
  { code: 'sensitive-file', targets: SERVER, seq: ['clientFile'] },
  { code: 'home-path', targets: SERVER, seq: ['home'] },
];

export function scanPhrases(hits: TextHits, place: Place, out: FindingSink): void {
  const text = hits.text;
  const found: Array<{ code: ScanCode; start: number; end: number }> = [];
  for (const rule of PHRASE_RULES) {
    if (!rule.targets.includes(place.target)) continue;
    for (const [start, end] of phraseSpans(hits, rule)) found.push({ code: rule.code, start, end });
  }
  let placeholders = 0;
  for (const u of hits.of('url')) {
    if (placeholders >= MAX_SPANS) break;
    if (URL_PLACEHOLDER.test(text.slice(u.start, u.end))) {
      found.push({ code: 'exfiltration', start: u.start, end: u.end });
      placeholders++;
    }
  }
  // One finding per stretch of text: overlapping spans of one code are merged.
  found.sort((x, y) => x.start - y.start || y.end - x.end);
  const merged: typeof found = [];
  const open = new Map<ScanCode, { code: ScanCode; start: number; end: number }>();
  for (const f of found) {
    const previous = open.get(f.code);
    if (previous && f.start < previous.end) {
      previous.end = Math.max(previous.end, f.end);
      continue;
    }
    const copy = { ...f };
    open.set(f.code, copy);
    merged.push(copy);
  }
  // A file or path already inside an error's span is said by that error.
  const errors = merged.filter((f) => SCAN_CODES[f.code][0] === 'error');
  const covered = (f: { start: number; end: number }) => errors.some((e) => e.start <= f.start && f.end <= e.end);
  for (const f of merged) {
    if ((f.code === 'sensitive-file' || f.code === 'home-path') && covered(f)) continue;
    if ((f.code === 'home-path' || f.code === 'sensitive-file') && (EXAMPLE_BEFORE.test(text.slice(Math.max(0, f.start - 60), f.start)) || PLACEHOLDER_HOME.test(text.slice(f.start, f.end)))) continue;
    if (f.code === 'home-path' && merged.some((s) => s.code === 'sensitive-file' && s.start < f.end && f.start < s.end)) continue;
    out.add(place, text, f.code, f.start, f.end, { text: quoted(text, f.start, f.end) });
  }
}
