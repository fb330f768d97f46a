/**
 * Phrases, English: the keyword classes phrase rules are made of. Every class is one regular
 * expression of plain alternatives, run once over the text.
 */

/** One regular expression per class: alternatives of words (whitespace between them), no nested repetition over the text. */
const CLASS_SOURCES = {
  neg: String.raw`\b(?:not|never|no|cannot|(?:can|won|don|doesn|mustn|shouldn)'t|avoids?|refuses?|unable)\b`,
  /** A negation that asks for the act: "don't forget to", "never fail to", "without fail". */
  notNeg: String.raw`\b(?:(?:do\s+not|don't|never|not|mustn't|must\s+not)\s+(?:forget|fail|neglect|omit|skip|hesitate)\s+to|without\s+fail)\b`,
  secrecyNeg: String.raw`\b(?:do\s+not|don't|never|must\s+not|mustn't|should\s+not|shouldn't|without|no\s+need\s+to|avoid)\b`,
  disclose: String.raw`\b(?:(?:tell|mention|inform|reveal|notify|alert|show|explain|say|report|warn)(?:ing)?|disclos(?:e|ing)|acknowledg(?:e|ing)|let)\b`,
  discloseThat: String.raw`\b(?:tell|mention|reveal|disclose)\s+(?:that|this|it|these|any\s+of\s+(?:this|it))\b`,
  audience: String.raw`\b(?:user|users|user's|human|humans|operator|person|anyone|anybody)\b`,
  secretKeep: [
    String.raw`\b(?:keep|hide|conceal)\s+(?:this|it|that|these|the\s+\w+)\s+(?:a\s+)?(?:secret|hidden|confidential|private)\b`,
    String.raw`\b(?:hide|conceal)\s+(?:this|it|that|these)\s+from\b`,
    String.raw`\b(?:the\s+)?users?\s+(?:must|should|will|may)\s+(?:not|never)\s+(?:know|see|notice|find\s+out|learn|be\s+told|be\s+informed|be\s+aware)\b`,
    String.raw`\bwithout\s+(?:the\s+)?user(?:'s)?\s+(?:knowledge|knowing|noticing|awareness|consent|seeing)\b`,
    String.raw`\bno\s+need\s+to\s+(?:bring\s+(?:this|it|that)\s+up|mention\s+(?:this|it|that))\b|\b(?:don't|do\s+not|never)\s+bring\s+(?:this|it|that)\s+up\b`,
    String.raw`\b(?:if|when)\s+(?:the\s+user\s+|anyone\s+|they\s+)?(?:asks?|asked|questions?)\b,?\s+(?:(?:just|simply|only)\s+)?(?:say|claim|answer|reply|respond|tell\s+(?:them|the\s+user))\b`,
    String.raw`\b(?:pretend|claim)\s+(?:that\s+)?(?:you|it|the\s+tool)\s+(?:only|just|never|did\s+not|didn't)\b`,
    String.raw`\b(?:secretly|covertly|quietly|silently|invisibly)\s+(?:send|sends|copy|forward|upload|include|add|append|read|exfiltrate|collect|pass|attach|transmit|post)\b`,
  ].join('|'),
  override: [
    String.raw`\b(?:ignore|disregard|forget|override|overrule|bypass)\s+(?:(?:all|any|the|your|every|of|these|those)\s+)*(?:previous|prior|above|earlier|preceding|former|other|existing|original|system|safety|security|developer|user's|user)\s+(?:instructions?|rules?|directions?|directives?|prompts?|guidelines?|guardrails?|messages?|constraints?|policies|policy|restrictions?)\b`,
    String.raw`\b(?:new|updated|real|actual|true)\s+system\s+(?:prompt|instructions?)\b`,
    String.raw`\byou\s+are\s+now\s+(?:an?|in|free|allowed|unrestricted|jailbroken|operating\s+as|acting\s+as)\b|\byou\s+are\s+no\s+longer\s+(?:bound|restricted|limited|an?)\b`,
    String.raw`\btakes?\s+precedence\s+over\s+(?:(?:all|any|the)\s+)?(?:other|previous|prior|system|user|your)\b`,
    String.raw`\b(?:supersedes?|overrides?)\s+(?:(?:all|any|the)\s+)?(?:other|previous|prior|system|user|your)\s+(?:instructions?|rules?|prompts?|guidelines?)\b`,
  ].join('|'),
  tag: String.raw`<\s*\/?\s*(?:important|instructions?|admin|secret|hidden|critical|override)\s*>`,
  // Tags of a chat's speakers and chat-template markers: a tool or skill has no use for them but to pose as the system or the assistant.
  roleTag: String.raw`<\s*\/?\s*(?:system|assistant|sys|system[-_ ]prompt)\s*>|\[\/?INST\]|<<\/?SYS>>|<\|(?:im_start|im_end|system|endoftext)\|>`,
  beforeTool: String.raw`\b(?:before|prior\s+to)\s+(?:you\s+)?(?:using|calling|invoking|running|executing|use|call|invoke|run|execute)\s+(?:this|the|any|each|every|another)\s+(?:\w+\s+)?tools?\b`,
  action: String.raw`\b(?:read|fetch|open|call|invoke|run|load|cat|send|upload|include|pass|visit|access|execute|list)\b`,
  addressed: [
    String.raw`\b(?:the|an?|dear)\s+(?:assistant|ai|ai\s+model|ai\s+assistant|ai\s+agent|model|llm|language\s+model|agent|chatbot)\s+(?:must|should|shall|needs?\s+to|has\s+to|is\s+required\s+to|is\s+instructed\s+to)\b`,
    String.raw`\bas\s+an?\s+(?:ai|assistant|language\s+model|llm)\b`,
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
  home: String.raw`~\/[\w.-]+|\$HOME\b|\$\{HOME\}|%USERPROFILE%|%APPDATA%|%HOMEPATH%|(?<![\w.~-])\/(?:home|Users)\/[\w.-]+\/[\w.-]+|\b[A-Za-z]:\\Users\\[\w.-]+`,
  readVerb: String.raw`\b(?:read(?:s|ing)?|(?:open|load|include|send)s?|cat|get|fetch|upload|copy|attach|access|print|dump|output|extract|collect|grab|retrieve|pass|provide|paste|share|forward|post|exfiltrate|steal|obtain)\b`,
  readPassive: String.raw`\b(?:is|are|be|been|being|gets?)\s+(?:read|sent|copied|(?:pass|includ|attach|upload|forward|post|provid|load|shar)ed)\b`,
  passVerb: String.raw`\b(?:pass(?:es|ing)?|puts?|includ(?:e|es)|send(?:s|ing)?|insert|add|append|attach|embed|upload|post|encode|copy|provide|supply|fill|set|forward|leak|exfiltrate|transmit)\b`,
  sink: String.raw`\b(?:parameter|param|argument|arg|field|query|url|uri|header|body|endpoint|webhook|payload|sidenote|side\s+note|note|comment|metadata)s?\b|\bas\s+[\x60'"][\w.-]+[\x60'"]|\bin(?:to)?\s+(?:the\s+)?[\x60'"][\w.-]+[\x60'"]|https?:\/\/`,
  secretNoun: [
    String.raw`(?<!\b(?:per|by|each|number\s+of|max(?:imum)?|count\s+of|limit\s+of)\s+|\x60)\b(?:secrets?|tokens?|api[\s_-]?keys?|access\s+keys?|private\s+keys?|ssh\s+keys?|passwords?|passphrases?|credentials?|cookies?|session\s+(?:ids?|tokens?))\b`,
    String.raw`\b(?:conversation(?:\s+history)?(?!\s+(?:ids?|urls?|links?|titles?))|chat\s+history|message\s+history|system\s+prompt|environment\s+variables|env\s+vars?)\b`,
    String.raw`\b(?:its|their|the\s+file's|the\s+whole|the\s+full|the\s+entire)\s+contents?\b`,
  ].join('|'),
  /** What a skill must not send anywhere (API keys in headers are a skill's everyday business). */
  skillSecret: String.raw`\b(?:private\s+keys?|ssh\s+keys?|system\s+prompt|conversation\s+history|chat\s+history|environment\s+variables)\b`,
  commentOpen: String.raw`<!--`,
  modelWord: String.raw`\b(?:ai|assistant|model|llm|agent|claude|gpt|copilot|chatbot)\b`,
  /** A download piped into a shell or an interpreter. */
  pipeShell: String.raw`\b(?:curl|wget|fetch|iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b[^|\n]{0,300}\|\s*(?:sudo\s+(?:-\w+\s+)*)?(?:(?:ba|z|k|da|fi)?sh|python[23]?|perl|ruby|node|iex|Invoke-Expression)\b`,
  decodeVerb: String.raw`\b(?:decode|decoding|base64\s+-d|atob|unhex|rot13|deobfuscate|decrypt)\b`,
  followVerb: String.raw`\b(?:follow|execute|run|obey|carry\s+out|act\s+on|do\s+what)\b`,
  /** A markdown image or link whose URL carries a placeholder for data (upper-case name, template). */
  markdownData: String.raw`!?\[[^\]\n]{0,200}\]\(\s*https?:\/\/[^\s)]{0,400}?[?&#][\w-]{1,40}=(?:[A-Z][A-Z0-9_]{3,}\b|\{|\$|<|%7B)`,
  /** A host name with a placeholder label: data carried out through a DNS lookup. */
  dnsPlaceholder: String.raw`(?:<[\w.-]{1,40}>|\{\{?[\w.-]{1,40}\}\}?|\$\{\w{1,40}\})\.(?:[\w-]+\.)+[a-z]{2,}\b`,
  url: String.raw`https?:\/\/[^\s"'<>\x60)\]]+`,
  mcpName: String.raw`\bmcp__([A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*)__([A-Za-z0-9_.-]+)`,
  identifier: String.raw`(?<![\w.-])[A-Za-z_][\w.-]*`,
  toolHook: [
    String.raw`\bwhen(?:ever)?\s+(?:the\s+|a\s+|any\s+)?[\x60'"]?([A-Za-z_][\w.-]*)[\x60'"]?\s+(?:tool\s+|function\s+)?(?:is|gets|has\s+been|was)\s+(?:called|used|invoked|run|executed|triggered)\b`,
    String.raw`\bwhen(?:ever)?\s+(?:you\s+)?(?:use|call|invoke|using|calling|invoking)\s+(?:the\s+|a\s+|any\s+)?[\x60'"]?([A-Za-z_][\w.-]*)`,
    String.raw`(?<![\w.-])[\x60'"]?([A-Za-z_][\w.-]*)[\x60'"]?\s+(?:tool\s+)?(?:is|has\s+been)\s+(?:now\s+)?(?:deprecated|disabled|broken|unsafe|removed|obsolete)\b`,
    String.raw`\b(?:on|for|with|after|before)\s+(?:every|each|all|any)\s+[\x60'"]?([A-Za-z_][\w.-]*)`,
    String.raw`\binstead\s+of\s+(?:using\s+|calling\s+)?(?:the\s+)?[\x60'"]?([A-Za-z_][\w.-]*)`,
  ].join('|'),
} as const;
export type ClassName = keyof typeof CLASS_SOURCES;
export const CLASSES = Object.fromEntries(Object.entries(CLASS_SOURCES).map(([name, source]) => [name, new RegExp(source, 'gi')])) as Record<ClassName, RegExp>;
/** A URL's query placeholder for data (`?data={contents}`, `&k=${token}`). */
export const URL_PLACEHOLDER = /[?&#/][\w-]*=?(?:\{\{?|\$\{|<|%7B)[^}>]{0,40}?(?:secret|token|key|password|passwd|credential|content|data|env|history|file|ssh|prompt|conversation|cookie)/i;

/**
 * Each match of a global regular expression, in order (exec on the shared expression: matchAll
 * copies it at every call, which costs more than a short string's whole scan).
 */
export function eachMatch(re: RegExp, text: string, visit: (m: RegExpExecArray) => boolean | void): void {
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0].length === 0) re.lastIndex++;
    if (visit(m) === false) break;
  }
  re.lastIndex = 0;
}
