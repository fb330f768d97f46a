/**
 * Hidden instructions in what servers and skills tell the model: a local, deterministic scan of
 * tool names, descriptions and input schemas (every key and string in them), a server's
 * `instructions` and SKILL.md text. Pure (no file, no network), linear in its input, never throws.
 *
 * Two kinds of rule:
 * - Hidden text, any language: the characters of core/json/visibleText.ts's classification, read
 *   in runs. Unicode tag characters are decoded back to ASCII, a run of variation selectors to the
 *   bytes it encodes, a run of two kinds of zero-width characters to the bits it encodes; ANSI
 *   escape sequences are found on their own.
 * - Phrases, English: each rule is a short sequence of keyword classes that must appear in that
 *   order, within a number of characters and in one sentence (e.g. "do not" ... "tell" ... "user").
 *   Every class is one regular expression of plain alternatives, run once over the text; a
 *   sequence is matched from those hits (the nearest earlier hit of each class), so no pattern
 *   can backtrack over the text.
 *
 * Every finding has a stable code (scanCodes.ts), its severity, the exact span (UTF-16 offsets into
 * the scanned string, and the path inside an input schema) and the span made visible. An
 * error-level finding withholds a tool or skill until the user accepts that exact definition.
 * docs/poisoning.md explains each rule with an example and the bounds used.
 */
import { forEachHiddenCharacter, visibleLine, type HiddenCharacter } from '../json/visibleText';
import { SCAN_CODES, type ScanCode, type ScanSeverity } from './scanCodes';

/** What kind of text is scanned: phrase rules differ (a skill is addressed to the model by design). */
export type ScanTarget = 'tool' | 'instructions' | 'skill';
/** Which part of a definition a finding is in. */
export type ScanField = 'name' | 'description' | 'inputSchema' | 'instructions' | 'skill';

export interface ScanFinding {
  code: ScanCode;
  severity: ScanSeverity;
  field: ScanField;
  /** In an input schema: the keys and indices down to the string (its last key, when `key`). */
  path?: Array<string | number>;
  /** The string scanned is a key (the last element of `path`), not a value. */
  key?: true;
  /** UTF-16 offsets of the span in the scanned string (the whole value for a finding on a whole definition). */
  start: number;
  end: number;
  /** The span with a little context, on one line, hidden characters escaped, at most ~200 characters. */
  excerpt: string;
  /** What hidden characters encode, shown escaped (tag characters as ASCII, variation selectors as UTF-8). */
  decoded?: string;
  /** The message's arguments (shown text: escaped and bounded). */
  args: Record<string, string | number>;
  /** In a SKILL.md: the line of the span's start (1-based). */
  line?: number;
}

/** The other tools a definition could steer: those of the same folder or session. */
export interface ScanContext {
  /** DSH's serverName of the server whose definition this is. */
  serverName?: string;
  /** Raw names of that server's own tools. */
  ownTools?: readonly string[];
  /** Tools of the other servers (raw names). */
  otherTools?: ReadonlyArray<{ serverName: string; tool: string }>;
}

/**
 * Bounds for oversized definitions. The clean corpus (test/fixtures/poisoning/clean, real
 * servers from npm) tops out at a 2,781-character description, 1,575 characters of instructions
 * and 1,532 characters of input schema (JSON); the warnings sit 3 to 21 times above that, the errors
 * far beyond anything a server needs to say. A tool name follows the MCP specification's 128.
 */
export const SCAN_BOUNDS = {
  name: { large: 128 },
  description: { large: 8_192, oversized: 65_536 },
  inputSchema: { large: 32_768, oversized: 262_144, depth: 64 },
  instructions: { large: 16_384, oversized: 262_144 },
} as const;

/** At most this many findings of one code per definition: a flood of one kind shows its first ones. */
const MAX_PER_CODE = 20;
const EXCERPT_CONTEXT = 24;
const EXCERPT_SPAN = 160;
const MAX_EXCERPT = 240;
const MAX_DECODED = 400;
/** A schema with more values than this is not read further (a cycle in an in-process object ends here too). */
const MAX_SCHEMA_VALUES = 2_000_000;

// ---------------------------------------------------------------------------------------------
// Hidden characters

const BIDI_OVERRIDE = /^[\u202a-\u202e\u2066-\u2069]$/u;
const SELECTOR = /^[\ufe00-\ufe0f\u{e0100}-\u{e01ef}]$/u;
const TAG_FLAG_BODY = /^[\u{e0030}-\u{e0039}\u{e0061}-\u{e007a}]{1,7}\u{e007f}$/u;
const FLAG_BASE = '\u{1f3f4}';
/** CSI (ESC [ or C1 CSI) with parameters, OSC up to its terminator, or a two-character escape. */
const ANSI = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[0-~])|\x9b[0-?]*[ -/]*[@-~]/g;

/** A letter of a script other than Latin: where a joiner or non-joiner between two is orthography. */
const NON_LATIN_LETTER = /^(?![A-Za-z\u00c0-\u024f])\p{L}$/u;

/**
 * What is text, not hidden: TAB, LF and CR LF, a byte order mark at the start; and a single zero width (non-)joiner between two
 * letters of a script that uses them (Persian, Indic scripts), the way a word is spelt there.
 */
function isText(text: string, c: HiddenCharacter): boolean {
  if (c.codePoint === 9 || c.codePoint === 10 || (c.codePoint === 13 && text.charCodeAt(c.index + 1) === 10)) return true;
  if (c.codePoint === 0xfeff && c.index === 0) return true; // a byte order mark: how the file is encoded
  if (c.codePoint !== 0x200c && c.codePoint !== 0x200d) return false;
  const before = text.codePointAt(cut(text, c.index - 1));
  const after = text.codePointAt(c.index + 1);
  return before !== undefined && after !== undefined && NON_LATIN_LETTER.test(String.fromCodePoint(before)) && NON_LATIN_LETTER.test(String.fromCodePoint(after));
}

function shownRun(text: string, start: number, end: number, max = 60): string {
  const shown = visibleLine(text.slice(start, Math.min(end, start + max)));
  return end - start > max ? `${shown}…` : shown;
}

/** Variation selectors as bytes (U+FE00-FE0F: 0-15, U+E0100-E01EF: 16-255), read as UTF-8. */
function decodeVariationSelectors(codePoints: readonly number[]): string {
  const bytes = codePoints.map((cp) => (cp <= 0xfe0f ? cp - 0xfe00 : cp - 0xe0100 + 16)).filter((b) => b >= 0 && b <= 255);
  return new TextDecoder('utf-8').decode(new Uint8Array(bytes));
}

/** Two kinds of invisible characters as bits (the lower code point 0), read as ASCII when every byte is printable. */
function decodeBits(codePoints: readonly number[]): string | undefined {
  const kinds = [...new Set(codePoints)].sort((a, b) => a - b);
  if (kinds.length !== 2 || codePoints.length < 8) return undefined;
  for (const zero of kinds) {
    let out = '';
    for (let i = 0; i + 8 <= codePoints.length; i += 8) {
      let byte = 0;
      for (let b = 0; b < 8; b++) byte = (byte << 1) | (codePoints[i + b] === zero ? 0 : 1);
      if (byte < 0x20 || byte > 0x7e) {
        out = '';
        break;
      }
      out += String.fromCharCode(byte);
    }
    if (out) return out;
  }
  return undefined;
}

/** One run of adjacent hidden characters, read as it goes (a run may be millions long: only bounded parts are kept). */
class HiddenRun {
  start = -1;
  end = -1;
  tags = 0;
  tagStart = -1;
  tagEnd = -1;
  tagText = '';
  selectors: number[] = [];
  selectorCount = 0;
  selectorStart = -1;
  invisible: number[] = [];
  invisibleCount = 0;
  invisibleKinds = new Set<number>();
  bidiOverride = false;
  other = 0;

  add(text: string, c: HiddenCharacter): void {
    if (this.start < 0) this.start = c.index;
    this.end = c.index + c.length;
    switch (c.class) {
      case 'tag': {
        if (this.tags++ === 0) this.tagStart = c.index;
        this.tagEnd = c.index + c.length;
        const ascii = c.codePoint - 0xe0000;
        if (ascii >= 0x20 && ascii <= 0x7e && this.tagText.length < MAX_DECODED) this.tagText += String.fromCharCode(ascii);
        break;
      }
      case 'variation-selector':
        if (this.selectorCount === 0) {
          this.selectorStart = c.index;
          // The first selector of a run may follow its emoji and count as shown: it carries a byte all the same.
          const before = c.index > 0 ? text.codePointAt(cut(text, c.index - 1)) : undefined;
          if (c.index === this.start && before !== undefined && SELECTOR.test(String.fromCodePoint(before))) {
            this.selectors.push(before);
            this.selectorCount++;
            this.selectorStart = c.index - (before > 0xffff ? 2 : 1);
          }
        }
        this.selectorCount++;
        if (this.selectors.length < MAX_DECODED * 4) this.selectors.push(c.codePoint);
        break;
      case 'invisible':
        this.invisibleCount++;
        if (this.invisibleKinds.size < 3) this.invisibleKinds.add(c.codePoint);
        if (this.invisible.length < MAX_DECODED * 8) this.invisible.push(c.codePoint);
        break;
      case 'bidi':
        if (BIDI_OVERRIDE.test(String.fromCodePoint(c.codePoint))) this.bidiOverride = true;
        else this.other++;
        break;
      default:
        this.other++;
    }
  }

  /** The run's findings (a subdivision flag, 🏴 + tag letters + cancel tag, shows a flag: it hides nothing). */
  report(text: string, place: Place, out: Findings): void {
    const { start, end } = this;
    let reported = false;
    const flag = this.tags > 0 && this.tags * 2 === end - start && text.slice(Math.max(0, start - 2), start) === FLAG_BASE
      && TAG_FLAG_BODY.test(text.slice(start, end));
    if (flag) return;
    if (this.tags) {
      const decoded = () => visibleLine(this.tagText);
      out.add(place, text, 'hidden-tag-text', this.tagStart, this.tagEnd, () => ({ decoded: decoded() }), decoded);
      reported = true;
    }
    if (this.selectorCount >= 2) {
      const decoded = () => visibleLine(decodeVariationSelectors(this.selectors));
      out.add(place, text, 'hidden-variation-selectors', this.selectorStart, end, () => ({ count: this.selectorCount, decoded: decoded() }), decoded);
      reported = true;
    }
    const shown = () => ({ shown: shownRun(text, start, end) });
    if (this.bidiOverride) {
      out.add(place, text, 'bidi-override', start, end, shown);
      reported = true;
    }
    if (this.invisibleCount >= 3) {
      out.add(place, text, 'hidden-invisible-run', start, end, () => ({ count: this.invisibleCount, ...shown() }), () => (this.invisibleKinds.size === 2 ? decodeBits(this.invisible) : undefined));
      reported = true;
    }
    if (!reported) out.add(place, text, 'hidden-characters', start, end, shown);
  }
}

// ---------------------------------------------------------------------------------------------
// Phrase rules: keyword classes, matched once each over the text

/** One regular expression per class: alternatives of words (whitespace between them), no nested repetition over the text. */
const CLASS_SOURCES = {
  neg: String.raw`\b(?:not|never|no|cannot|(?:can|won|don|doesn|mustn|shouldn)'t|avoids?|refuses?|unable)\b`,
  secrecyNeg: String.raw`\b(?:do\s+not|don't|never|must\s+not|mustn't|should\s+not|shouldn't|without|no\s+need\s+to|avoid)\b`,
  disclose: String.raw`\b(?:(?:tell|mention|inform|reveal|notify|alert|show|explain|say|report|warn)(?:ing)?|disclos(?:e|ing)|acknowledg(?:e|ing)|let)\b`,
  discloseThat: String.raw`\b(?:tell|mention|reveal|disclose)\s+(?:that|this|it|these|any\s+of\s+(?:this|it))\b`,
  audience: String.raw`\b(?:user|users|user's|human|humans|operator|person|anyone|anybody)\b`,
  secretKeep: [
    String.raw`\b(?:keep|hide|conceal)\s+(?:this|it|that|these|the\s+\w+)\s+(?:a\s+)?(?:secret|hidden|confidential|private)\b`,
    String.raw`\b(?:hide|conceal)\s+(?:this|it|that|these)\s+from\b`,
    String.raw`\b(?:the\s+)?users?\s+(?:must|should|will|may)\s+(?:not|never)\s+(?:know|see|notice|find\s+out|learn|be\s+told|be\s+informed|be\s+aware)\b`,
    String.raw`\bwithout\s+(?:the\s+)?user(?:'s)?\s+(?:knowledge|knowing|noticing|awareness|consent|seeing)\b`,
    String.raw`\b(?:secretly|covertly|quietly|silently|invisibly)\s+(?:send|sends|copy|forward|upload|include|add|append|read|exfiltrate|collect|pass|attach|transmit|post)\b`,
  ].join('|'),
  override: [
    String.raw`\b(?:ignore|disregard|forget|override|overrule|bypass)\s+(?:(?:all|any|the|your|every|of|these|those)\s+)*(?:previous|prior|above|earlier|preceding|former|other|existing|original|system|safety|security|developer|user's|user)\s+(?:instructions?|rules?|directions?|directives?|prompts?|guidelines?|guardrails?|messages?|constraints?|policies|policy|restrictions?)\b`,
    String.raw`\b(?:new|updated|real|actual|true)\s+system\s+(?:prompt|instructions?)\b`,
    String.raw`\byou\s+are\s+now\s+(?:an?|in|free|allowed|unrestricted|jailbroken|operating\s+as|acting\s+as)\b|\byou\s+are\s+no\s+longer\s+(?:bound|restricted|limited|an?)\b`,
    String.raw`\btakes?\s+precedence\s+over\s+(?:(?:all|any|the)\s+)?(?:other|previous|prior|system|user|your)\b`,
    String.raw`\b(?:supersedes?|overrides?)\s+(?:(?:all|any|the)\s+)?(?:other|previous|prior|system|user|your)\s+(?:instructions?|rules?|prompts?|guidelines?)\b`,
  ].join('|'),
  tag: String.raw`<\s*\/?\s*(?:important|system|instructions?|admin|secret|hidden|critical|override|assistant|sys|system[-_ ]prompt)\s*>|\[\/?INST\]|<<\/?SYS>>|<\|(?:im_start|im_end|system|endoftext)\|>`,
  beforeTool: String.raw`\b(?:before|prior\s+to)\s+(?:you\s+)?(?:using|calling|invoking|running|executing|use|call|invoke|run|execute)\s+(?:this|the|any|each|every|another)\s+(?:\w+\s+)?tools?\b`,
  action: String.raw`\b(?:read|fetch|open|call|invoke|run|load|cat|send|upload|include|pass|visit|access|execute|list)\b`,
  addressed: [
    String.raw`\b(?:the|an?|dear)\s+(?:assistant|ai|ai\s+model|ai\s+assistant|ai\s+agent|model|llm|language\s+model|agent|chatbot)\s+(?:must|should|shall|needs?\s+to|has\s+to|is\s+required\s+to|is\s+instructed\s+to)\b`,
    String.raw`\bas\s+an?\s+(?:ai|assistant|language\s+model|llm)\b`,
    String.raw`\byou\s+(?:must|shall|are\s+required\s+to|are\s+instructed\s+to|have\s+to)\b`,
    String.raw`\b(?:hey|attention|note\s+to)\s+(?:the\s+)?(?:assistant|ai|model|llm|claude|agent)\b`,
  ].join('|'),
  sensitive: [
    String.raw`~\/\.ssh\b(?:\/[\w.-]+)?|(?<![\w.~-])\.ssh\/[\w.-]*|\bid_(?:rsa|dsa|ecdsa|ed25519)(?:\.pub)?\b|\bauthorized_keys\b`,
    String.raw`\.aws\/(?:credentials|config)\b|\.netrc\b|\.npmrc\b|\.pypirc\b|\.pgpass\b|\.git-credentials\b`,
    String.raw`\.docker\/config\.json\b|\.kube\/config\b|\.gnupg\b|\/etc\/(?:passwd|shadow|sudoers)\b|\.password-store\b`,
    String.raw`\.bash_history\b|\.zsh_history\b`,
    String.raw`\bcredentials\.json\b|\bwallet\.dat\b|\.config\/gcloud\b|\bkeychain\b|\bsecrets?\.(?:json|ya?ml|toml)\b`,
  ].join('|'),
  /**
   * Files that hold credentials but that a skill names in everyday advice (create a .env, set up
   * an mcp.json): sensitive in what a server tells the model, not in a skill.
   */
  clientFile: String.raw`\bmcp\.json\b|\bclaude_desktop_config\.json\b|\.cursor\/|(?<![\w.-])\.env(?:\.(?:local|production|prod|development|dev|staging))?(?![\w-]|\.\w)`,
  home: String.raw`~\/[\w.-]+|\$HOME\b|\$\{HOME\}|%USERPROFILE%|%APPDATA%|%HOMEPATH%|(?<![\w.~-])\/(?:home|Users)\/[\w.-]+|\b[A-Za-z]:\\Users\\[\w.-]+`,
  readVerb: String.raw`\b(?:read(?:s|ing)?|(?:open|load|include|send)s?|cat|get|fetch|upload|copy|attach|access|print|dump|output|extract|collect|grab|retrieve|pass|provide|paste|share|forward|post|exfiltrate|steal|obtain)\b`,
  readPassive: String.raw`\b(?:is|are|be|been|being|gets?)\s+(?:read|sent|copied|(?:pass|includ|attach|upload|forward|post|provid|load|shar)ed)\b`,
  passVerb: String.raw`\b(?:pass(?:es|ing)?|puts?|includ(?:e|es|ing)|send(?:s|ing)?|insert|add|append|attach|embed|upload|post|encode|copy|provide|supply|fill|set|forward|leak|exfiltrate|transmit)\b`,
  sink: String.raw`\b(?:parameter|param|argument|arg|field|query|url|uri|header|body|endpoint|webhook|payload|sidenote|side\s+note|note|comment|metadata)s?\b|\bas\s+[\x60'"][\w.-]+[\x60'"]|\bin(?:to)?\s+(?:the\s+)?[\x60'"][\w.-]+[\x60'"]|https?:\/\/`,
  secretNoun: [
    String.raw`\b(?:secrets?|tokens?|api[\s_-]?keys?|access\s+keys?|private\s+keys?|ssh\s+keys?|passwords?|passphrases?|credentials?|cookies?|session\s+(?:ids?|tokens?))\b`,
    String.raw`\b(?:conversation(?:\s+history)?|chat\s+history|message\s+history|system\s+prompt|environment\s+variables|env\s+vars?)\b`,
    String.raw`\b(?:its|their|the\s+file's|the\s+whole|the\s+full|the\s+entire)\s+contents?\b`,
  ].join('|'),
  /** What a skill must not send anywhere (API keys in headers are a skill's everyday business). */
  skillSecret: String.raw`\b(?:private\s+keys?|ssh\s+keys?|system\s+prompt|conversation\s+history|chat\s+history|environment\s+variables)\b`,
  url: String.raw`https?:\/\/[^\s"'<>\x60)\]]+`,
  mcpName: String.raw`\bmcp__([A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*)__([A-Za-z0-9_.-]+)`,
  identifier: String.raw`(?<![\w.-])[A-Za-z_][\w.-]*`,
  toolHook: [
    String.raw`\bwhen(?:ever)?\s+(?:the\s+|a\s+|any\s+)?[\x60'"]?([A-Za-z_][\w.-]*)[\x60'"]?\s+(?:tool\s+|function\s+)?(?:is|gets|has\s+been|was)\s+(?:called|used|invoked|run|executed|triggered)\b`,
    String.raw`\bwhen(?:ever)?\s+(?:you\s+)?(?:use|call|invoke|using|calling|invoking)\s+(?:the\s+|a\s+|any\s+)?[\x60'"]?([A-Za-z_][\w.-]*)`,
  ].join('|'),
} as const;
type ClassName = keyof typeof CLASS_SOURCES;
const CLASSES = Object.fromEntries(Object.entries(CLASS_SOURCES).map(([name, source]) => [name, new RegExp(source, 'gi')])) as Record<ClassName, RegExp>;
/** A URL's query placeholder for data (`?data={contents}`, `&k=${token}`). */
const URL_PLACEHOLDER = /[?&#/][\w-]*=?(?:\{\{?|\$\{|<|%7B)[^}>]{0,40}?(?:secret|token|key|password|passwd|credential|content|data|env|history|file|ssh|prompt|conversation|cookie)/i;

interface Hit {
  start: number;
  end: number;
  groups?: Array<string | undefined>;
}

interface PhraseRule {
  code: ScanCode;
  targets: readonly ScanTarget[];
  /** Classes in this order, from the first hit's start to the last hit's end within `within` characters, in one sentence. */
  seq: readonly ClassName[];
  within?: number;
  /** Not when a hit of `neg` ends at most 16 characters before the hit of `seq[negBefore]`. */
  negBefore?: number;
  /** Also a hit of one of these classes in the same sentence, at most 160 characters from the span. */
  also?: readonly ClassName[];
}

const ALL: readonly ScanTarget[] = ['tool', 'instructions', 'skill'];
const SERVER: readonly ScanTarget[] = ['tool', 'instructions'];
const NEG_GAP = 16;
const MAX_SPANS = 10 * MAX_PER_CODE;
const ALSO_GAP = 160;

const PHRASE_RULES: readonly PhraseRule[] = [
  { code: 'instruction-override', targets: ALL, seq: ['override'] },
  { code: 'secrecy-request', targets: ALL, seq: ['secrecyNeg', 'disclose', 'audience'], within: 120 },
  { code: 'secrecy-request', targets: ALL, seq: ['secrecyNeg', 'discloseThat'], within: 40 },
  { code: 'secrecy-request', targets: ALL, seq: ['secretKeep'] },
  { code: 'instruction-tag', targets: ALL, seq: ['tag'] },
  { code: 'precondition-instruction', targets: SERVER, seq: ['beforeTool', 'action'], within: 160 },
  { code: 'addressed-to-model', targets: SERVER, seq: ['addressed'] },
  { code: 'read-sensitive-file', targets: ALL, seq: ['readVerb', 'sensitive'], within: 120, negBefore: 0 },
  { code: 'read-sensitive-file', targets: SERVER, seq: ['readVerb', 'clientFile'], within: 120, negBefore: 0 },
  { code: 'read-sensitive-file', targets: SERVER, seq: ['clientFile', 'readPassive'], within: 60, negBefore: 1 },
  { code: 'read-sensitive-file', targets: ALL, seq: ['sensitive', 'readPassive'], within: 60, negBefore: 1 },
  { code: 'exfiltration', targets: SERVER, seq: ['passVerb', 'sink'], within: 160, negBefore: 0, also: ['secretNoun', 'sensitive', 'clientFile'] },
  { code: 'exfiltration', targets: ['skill'], seq: ['passVerb', 'sink'], within: 160, negBefore: 0, also: ['skillSecret', 'sensitive'] },
  { code: 'sensitive-file', targets: ALL, seq: ['sensitive'] },
  { code: 'sensitive-file', targets: SERVER, seq: ['clientFile'] },
  { code: 'home-path', targets: SERVER, seq: ['home'] },
];

/**
 * Each match of a global regular expression, in order (exec on the shared expression: matchAll
 * copies it at every call, which costs more than a short string's whole scan).
 */
function eachMatch(re: RegExp, text: string, visit: (m: RegExpExecArray) => boolean | void): void {
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0].length === 0) re.lastIndex++;
    if (visit(m) === false) break;
  }
  re.lastIndex = 0;
}

const SENTENCE_END = /[.!?](?=\s)|\n[ \t]*(?=\n|[-*•]\s|\d{1,3}[.)]\s)/g;

/** Offsets where sentences end: ". " / "! " / "? ", a blank line, a line that starts a list item. */
function sentenceEnds(text: string): number[] {
  const ends: number[] = [];
  eachMatch(SENTENCE_END, text, (m) => {
    ends.push(m.index + m[0].length);
  });
  return ends;
}

/** How many leading values of an ascending sequence (`length` values, `valueAt` each) are at most `x`. */
function countAtMost(length: number, valueAt: (i: number) => number, x: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (valueAt(mid) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The last hit (sorted, not overlapping) that ends at or before `x`, as an index, or -1. */
const lastEndingBy = (hits: readonly Hit[], x: number) => countAtMost(hits.length, (i) => hits[i].end, x) - 1;

/**
 * At most this many hits of one class in one text: a text that holds more is far beyond the
 * oversized bound (an error already), and its hits would cost memory, not findings.
 */
const MAX_HITS = 50_000;

/** The hits of each class in one text, computed on first use. */
class TextHits {
  private readonly cache = new Map<ClassName, Hit[]>();
  private ends?: number[];

  constructor(readonly text: string) {}

  of(name: ClassName): Hit[] {
    let hits = this.cache.get(name);
    if (!hits) {
      hits = [];
      const list = hits;
      eachMatch(CLASSES[name], this.text, (m) => {
        list.push(m.length > 1 ? { start: m.index, end: m.index + m[0].length, groups: m.slice(1) } : { start: m.index, end: m.index + m[0].length });
        return list.length < MAX_HITS;
      });
      this.cache.set(name, hits);
    }
    return hits;
  }

  sentence(offset: number): number {
    const ends = (this.ends ??= sentenceEnds(this.text));
    return countAtMost(ends.length, (i) => ends[i], offset);
  }
}

/** Every span where a phrase rule holds (see PhraseRule), one per last hit, not overlapping. */
function phraseSpans(hits: TextHits, rule: PhraseRule): Array<[number, number]> {
  const lists: Hit[][] = [];
  for (const c of rule.seq) {
    const list = hits.of(c);
    if (list.length === 0) return [];
    lists.push(list);
  }
  const spans: Array<[number, number]> = [];
  for (const last of lists[lists.length - 1]) {
    // The nearest earlier hit of each class before it: the shortest chain ending here.
    const chain: Hit[] = [last];
    for (let k = lists.length - 2; k >= 0; k--) {
      const i = lastEndingBy(lists[k], chain[0].start);
      if (i < 0) break;
      chain.unshift(lists[k][i]);
    }
    if (chain.length !== lists.length) continue;
    const start = chain[0].start;
    const end = last.end;
    if (rule.within !== undefined && end - start > rule.within) continue;
    const sentence = hits.sentence(start);
    if (hits.sentence(Math.max(start, end - 1)) !== sentence) continue;
    if (rule.negBefore !== undefined) {
      const at = chain[rule.negBefore].start;
      const neg = hits.of('neg');
      const i = lastEndingBy(neg, at);
      if (i >= 0 && at - neg[i].end <= NEG_GAP && hits.sentence(neg[i].start) === sentence) continue;
    }
    if (rule.also && !rule.also.some((c) => nearby(hits, c, start, end, sentence))) continue;
    spans.push([start, end]);
    // Enough to give MAX_PER_CODE findings after merging: the rest of a flood is not shown.
    if (spans.length >= MAX_SPANS) break;
  }
  return spans;
}

function nearby(hits: TextHits, name: ClassName, start: number, end: number, sentence: number): boolean {
  const list = hits.of(name);
  // The first hit that ends after start - gap, then any before end + gap in the sentence.
  for (let i = Math.max(0, lastEndingBy(list, start - ALSO_GAP) + 1); i < list.length && list[i].start <= end + ALSO_GAP; i++) {
    if (hits.sentence(list[i].start) === sentence) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Findings

/** Where a string sits in a definition, and what it is scanned as. */
interface Place {
  field: ScanField;
  target: ScanTarget;
  /** In an input schema: the node of the string (its path is built only for a finding). */
  node?: SchemaNode;
  key?: true;
}

/** Collects the findings of one definition, at most {@link MAX_PER_CODE} of each code. */
class Findings {
  readonly list: ScanFinding[] = [];
  private readonly counts = new Map<ScanCode, number>();

  /** `args` may be a function: a code already at its limit costs nothing more. */
  add(place: Place, text: string, code: ScanCode, start: number, end: number, args: Record<string, string | number> | (() => Record<string, string | number>) = {}, decoded?: string | (() => string | undefined)): void {
    const n = this.counts.get(code) ?? 0;
    if (n >= MAX_PER_CODE) return;
    this.counts.set(code, n + 1);
    if (typeof args === 'function') args = args();
    if (typeof decoded === 'function') decoded = decoded();
    const finding: ScanFinding = { code, severity: SCAN_CODES[code][0], field: place.field, start, end, excerpt: excerpt(text, start, end, code === 'hidden-variation-selectors'), args };
    if (place.node) finding.path = pathOf(place.node);
    if (place.key) finding.key = true;
    if (decoded !== undefined) finding.decoded = decoded;
    this.list.push(finding);
  }
}

/** A cut that does not split a surrogate pair. */
function cut(text: string, at: number): number {
  const c = text.charCodeAt(at);
  return at > 0 && at < text.length && c >= 0xdc00 && c <= 0xdfff ? at - 1 : at;
}

const ANY_SELECTOR = /[\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/gu;

/**
 * The span with a little context, shown on one line. `selectors`: every variation selector
 * escaped too (visibleLine keeps the one that follows a visible character, which selects its
 * glyph; in a smuggled run that one carries a byte as well).
 */
function excerpt(text: string, start: number, end: number, selectors = false): string {
  const from = cut(text, Math.max(0, start - EXCERPT_CONTEXT));
  const long = end - start > EXCERPT_SPAN;
  const to = cut(text, long ? start + EXCERPT_SPAN : Math.min(text.length, end + EXCERPT_CONTEXT));
  let shown = visibleLine(text.slice(from, to));
  if (selectors) shown = shown.replace(ANY_SELECTOR, (ch) => `\\u{${ch.codePointAt(0)!.toString(16)}}`);
  // Escapes make a span of hidden characters up to ten times longer: the shown text is bounded too.
  const cutShown = shown.length > MAX_EXCERPT;
  if (cutShown) shown = shown.slice(0, MAX_EXCERPT);
  return `${from > 0 ? '…' : ''}${shown}${cutShown || long || to < text.length ? '…' : ''}`;
}

/** The quoted text of a phrase finding: the span, on one line, bounded. */
function quoted(text: string, start: number, end: number): string {
  return shownRun(text, start, end, 120).replace(/\s+/g, ' ');
}

function scanHidden(text: string, place: Place, out: Findings): void {
  const ansi: Array<[number, number]> = [];
  if (text.includes('\x1b') || text.includes('\x9b')) {
    eachMatch(ANSI, text, (m) => {
      ansi.push([m.index, m.index + m[0].length]);
      out.add(place, text, 'ansi-escape', m.index, m.index + m[0].length, () => ({ shown: shownRun(text, m.index, m.index + m[0].length) }));
    });
  }
  // Runs of adjacent hidden characters, leaving out text controls and what the ANSI rule took.
  let a = 0;
  const inAnsi = (i: number) => {
    while (a < ansi.length && ansi[a][1] <= i) a++;
    return a < ansi.length && ansi[a][0] <= i;
  };
  let run = new HiddenRun();
  const flush = () => {
    if (run.start >= 0) run.report(text, place, out);
    run = new HiddenRun();
  };
  forEachHiddenCharacter(text, (c) => {
    if (isText(text, c) || inAnsi(c.index)) return flush();
    if (run.end >= 0 && run.end !== c.index) flush();
    run.add(text, c);
  });
  flush();
}

/** An identifier that names a tool and not a plain word: with `_`, `-` or `.`, or a lowercase-uppercase hump. */
function toolLike(name: string): boolean {
  return name.length >= 4 && (/[_.-]/.test(name) || /[a-z][A-Z]/.test(name));
}

const NOT_A_TOOL = new Set(['this', 'that', 'it', 'the', 'a', 'an', 'any', 'each', 'every', 'one', 'another', 'tool', 'tools', 'function', 'you']);

/**
 * The server's own tools, and other servers' tool names (tool -> server) a text may refer to:
 * built once per context, not for every string of a schema.
 */
const toolsOfContext = new WeakMap<ScanContext, { own: ReadonlySet<string>; others: ReadonlyMap<string, string> }>();

function contextTools(context: ScanContext): { own: ReadonlySet<string>; others: ReadonlyMap<string, string> } {
  let tools = toolsOfContext.get(context);
  if (!tools) {
    const own = new Set(context.ownTools ?? []);
    const others = new Map<string, string>();
    for (const t of context.otherTools ?? []) {
      if (t.serverName !== context.serverName && !own.has(t.tool) && toolLike(t.tool)) others.set(t.tool, t.serverName);
    }
    toolsOfContext.set(context, (tools = { own, others }));
  }
  return tools;
}

function scanReferences(hits: TextHits, place: Place, context: ScanContext, out: Findings): void {
  const text = hits.text;
  for (const h of hits.of('mcpName')) {
    const server = h.groups?.[0] ?? '';
    if (context.serverName !== undefined && server === context.serverName) continue;
    out.add(place, text, 'other-server-tool', h.start, h.end, { tool: visibleLine(text.slice(h.start, h.end)) });
  }
  const { own, others } = contextTools(context);
  if (others.size) {
    // Every identifier of the text looked up by name (not stored: a long text has millions).
    eachMatch(CLASSES.identifier, text, (m) => {
      const name = m[0].replace(/[.-]+$/, '');
      const server = others.get(name);
      if (server !== undefined) out.add(place, text, 'other-server-tool', m.index, m.index + name.length, { tool: visibleLine(`${name} (${server})`) });
    });
  }
  for (const h of hits.of('toolHook')) {
    const name = (h.groups?.[0] ?? h.groups?.[1] ?? '').replace(/[.-]+$/, '');
    const quotedName = /[\x60'"]/.test(text.slice(h.start, h.end));
    if (!name || NOT_A_TOOL.has(name.toLowerCase()) || own.has(name) || !(toolLike(name) || quotedName)) continue;
    out.add(place, text, 'tool-hook', h.start, h.end, { tool: visibleLine(name) });
  }
}

function scanPhrases(hits: TextHits, place: Place, out: Findings): void {
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
    if (f.code === 'home-path' && merged.some((s) => s.code === 'sensitive-file' && s.start < f.end && f.start < s.end)) continue;
    out.add(place, text, f.code, f.start, f.end, { text: quoted(text, f.start, f.end) });
  }
}

/** A string that holds no whitespace and no hidden character: only single-token rules can hold. */
const PLAIN_TOKEN = /^[\w.\/~$%:\\-]*$/;

function scanString(text: string, place: Place, context: ScanContext, out: Findings): void {
  if (text.length === 0) return;
  // A plain token (a key, a tool name, a file, a home path) holds no hidden character.
  if (!PLAIN_TOKEN.test(text)) scanHidden(text, place, out);
  const hits = new TextHits(text);
  if (place.target !== 'skill') scanReferences(hits, place, context, out);
  scanPhrases(hits, place, out);
}

function sizeFinding(out: Findings, place: Place, text: string, size: number, bounds: { large: number; oversized?: number }): void {
  if (bounds.oversized !== undefined && size > bounds.oversized) out.add(place, text, 'oversized-definition', 0, text.length, { size, limit: bounds.oversized });
  else if (size > bounds.large) out.add(place, text, 'large-definition', 0, text.length, { size, limit: bounds.large });
}

function errorText(error: unknown): string {
  try {
    return visibleLine(error instanceof Error ? error.message : String(error)).slice(0, 200);
  } catch {
    return 'unreadable';
  }
}

/** A node of the schema walk: its value and where it hangs (the path is built only for a finding). */
interface SchemaNode {
  value: unknown;
  parent?: SchemaNode;
  key?: string | number;
  depth: number;
}

function pathOf(node: SchemaNode): Array<string | number> {
  const path: Array<string | number> = [];
  for (let n: SchemaNode | undefined = node; n && n.key !== undefined; n = n.parent) path.push(n.key);
  return path.reverse();
}

/**
 * Every key and string of an input schema, iteratively (any depth), in document order; its size
 * (characters of keys and strings) and depth against {@link SCAN_BOUNDS}.
 */
function scanSchema(schema: unknown, context: ScanContext, out: Findings): void {
  const stack: SchemaNode[] = [{ value: schema, depth: 0 }];
  let size = 0;
  let depth = 0;
  let values = 0;
  const place = (node: SchemaNode, key?: true): Place => ({ field: 'inputSchema', target: 'tool', node, ...(key ? { key } : {}) });
  while (stack.length) {
    const node = stack.pop()!;
    if (++values > MAX_SCHEMA_VALUES) {
      out.add({ field: 'inputSchema', target: 'tool' }, '', 'unscannable', 0, 0, { reason: `more than ${MAX_SCHEMA_VALUES} values` });
      break;
    }
    const { value } = node;
    if (typeof value === 'string') {
      size += value.length;
      if (value.length) scanString(value, place(node), context, out);
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    depth = Math.max(depth, node.depth);
    if (node.depth > SCAN_BOUNDS.inputSchema.depth) continue; // said once below; deeper levels are not read
    const children: SchemaNode[] = [];
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) children.push({ value: value[i], parent: node, key: i, depth: node.depth + 1 });
    } else {
      for (const key of Object.keys(value)) {
        size += key.length;
        const child: SchemaNode = { value: (value as Record<string, unknown>)[key], parent: node, key, depth: node.depth + 1 };
        scanString(key, place(child, true), context, out);
        children.push(child);
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  const whole: Place = { field: 'inputSchema', target: 'tool' };
  if (depth > SCAN_BOUNDS.inputSchema.depth) out.add(whole, '', 'deep-schema', 0, 0, { depth: `${depth}+`, limit: SCAN_BOUNDS.inputSchema.depth });
  sizeFinding(out, whole, '', size, SCAN_BOUNDS.inputSchema);
}

function sorted(findings: ScanFinding[]): ScanFinding[] {
  const fieldOrder: Record<ScanField, number> = { name: 0, description: 1, inputSchema: 2, instructions: 3, skill: 4 };
  return findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => fieldOrder[a.f.field] - fieldOrder[b.f.field] || a.i - b.i)
    .map((x) => x.f);
}

/** One tool as a server lists it (`tools/list`): the parts DSH passes to the model. */
export interface ScannedTool {
  name: string;
  description?: string;
  inputSchema?: unknown;
}

/** Findings of one tool definition: its name, description and every key and string of its input schema. Never throws. */
export function scanTool(tool: ScannedTool, context: ScanContext = {}): ScanFinding[] {
  const out = new Findings();
  try {
    const name = typeof tool.name === 'string' ? tool.name : '';
    const description = typeof tool.description === 'string' ? tool.description : '';
    const namePlace: Place = { field: 'name', target: 'tool' };
    scanHidden(name, namePlace, out);
    sizeFinding(out, namePlace, name, name.length, SCAN_BOUNDS.name);
    const descriptionPlace: Place = { field: 'description', target: 'tool' };
    scanString(description, descriptionPlace, context, out);
    sizeFinding(out, descriptionPlace, description, description.length, SCAN_BOUNDS.description);
    scanSchema(tool.inputSchema, context, out);
  } catch (error) {
    out.add({ field: 'description', target: 'tool' }, '', 'unscannable', 0, 0, { reason: errorText(error) });
  }
  return sorted(out.list);
}

/** Findings of a server's `instructions` (from `initialize`). Never throws. */
export function scanInstructions(instructions: string, context: ScanContext = {}): ScanFinding[] {
  const out = new Findings();
  const place: Place = { field: 'instructions', target: 'instructions' };
  try {
    const text = typeof instructions === 'string' ? instructions : '';
    scanString(text, place, context, out);
    sizeFinding(out, place, text, text.length, SCAN_BOUNDS.instructions);
  } catch (error) {
    out.add(place, '', 'unscannable', 0, 0, { reason: errorText(error) });
  }
  return out.list;
}

/**
 * Findings of a SKILL.md's text (front matter and body, offsets into `raw`). `values`: front
 * matter values as DSH reads them where they differ from their source text (a YAML escape such as
 * `"\u200b"` makes a hidden character that the file does not show); their findings span the
 * whole value in the file. Never throws.
 */
export function scanSkillText(raw: string, values: ReadonlyArray<{ value: string; start: number; end: number }> = []): ScanFinding[] {
  const out = new Findings();
  const place: Place = { field: 'skill', target: 'skill' };
  try {
    scanString(raw, place, {}, out);
    for (const v of values) {
      const inner = new Findings();
      scanString(v.value, place, {}, inner);
      for (const f of inner.list) {
        if (out.list.some((g) => g.code === f.code && g.start >= v.start && g.end <= v.end)) continue;
        out.add(place, raw, f.code, v.start, v.end, f.args, f.decoded);
      }
    }
  } catch (error) {
    out.add(place, '', 'unscannable', 0, 0, { reason: errorText(error) });
  }
  return out.list.sort((a, b) => a.start - b.start);
}

/** Whether findings withhold the definition until the user accepts it. */
export function withholds(findings: readonly ScanFinding[]): boolean {
  return findings.some((f) => f.severity === 'error');
}
