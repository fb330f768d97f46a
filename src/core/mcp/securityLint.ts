import { templateWithPlaceholders, type Template } from '../declaration/template';

/**
 * Words that make a name a credential name. DSH 0.2's editor uses
 * /KEY|PASSWORD|SECRET|TOKEN/i (env) and /authorization|cookie|token|key|secret|password/i
 * (headers) as substrings; applied to whole WORDS they stop flagging MONKEY or
 * TOKENIZERS_PARALLELISM while still catching API_KEY, apiKey or X-Auth-Token.
 */
const CREDENTIAL_WORDS = new Set([
  'key', 'apikey', 'password', 'passwd', 'secret', 'token', 'authorization', 'cookie', 'credential', 'credentials', 'pat', 'auth',
]);

function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

// The same few names (API_TOKEN, PORT, Authorization) recur in every server of a file.
const credentialNameMemo = new Map<string, boolean>();

export function isCredentialName(name: string): boolean {
  let known = credentialNameMemo.get(name);
  if (known === undefined) {
    known = nameWords(name).some((w) => CREDENTIAL_WORDS.has(w));
    if (credentialNameMemo.size > 4096) credentialNameMemo.clear();
    credentialNameMemo.set(name, known);
  }
  return known;
}

/** Value shapes of well-known credentials, wherever they appear. */
export const CREDENTIAL_SHAPES: readonly RegExp[] = [
  /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}/, // OpenAI, Anthropic, DeepSeek style keys
  /\bgh[pousr]_[A-Za-z0-9]{30,}/, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{20,}/,
  /\bAKIA[0-9A-Z]{16}\b/, // AWS access key id
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/, // Slack
  /\bglpat-[A-Za-z0-9_-]{20,}/, // GitLab
  /\bAIza[0-9A-Za-z_-]{35}\b/, // Google API key
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
];

// One alternation scans a value once instead of once per shape.
const ANY_CREDENTIAL_SHAPE = new RegExp(CREDENTIAL_SHAPES.map((re) => `(?:${re.source})`).join('|'));

export function looksLikeCredentialValue(value: string): boolean {
  return value.length >= 16 && ANY_CREDENTIAL_SHAPE.test(value);
}

/** Literal text of a template (references removed). */
export function literalText(template: Template): string {
  return templateWithPlaceholders(template, '');
}

/** `Bearer abc` or `abc`: a credential field whose value has literal content beyond a scheme word. */
export function hasLiteralCredential(template: Template): boolean {
  const text = literalText(template);
  // A `${...}` left as written (not a VS Code variable, or in `.mcp.json`) is a name, not a secret.
  const literal = text.replace(/\$\{[^}\n]*\}/g, '').trim();
  if (literal === '') return false;
  if (typeof template !== 'string' || literal !== text.trim()) {
    // "Bearer ${input:tok}": only the scheme is literal.
    return !/^(bearer|basic|token|apikey)$/i.test(literal);
  }
  return true;
}

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** Input ids that occur in the scheme or authority part of a URL template. */
export function inputsInUrlAuthority(template: Template): string[] {
  if (typeof template === 'string') return [];
  const ids: string[] = [];
  let text = '';
  for (const part of template) {
    if (typeof part === 'string') {
      text += part;
      continue;
    }
    const schemeEnd = text.indexOf('://');
    const afterAuthority = schemeEnd >= 0 && /[/?#]/.test(text.slice(schemeEnd + 3));
    if (!afterAuthority && 'input' in part) ids.push(part.input);
    text += 'x';
  }
  return ids;
}

export interface UnpinnedLauncher {
  launcher: string;
  hint: string;
  /** Index in args of the unpinned package or image. */
  argIndex: number;
}

const DOCKER_FLAGS_WITH_VALUE = new Set([
  '-e', '--env', '-v', '--volume', '--name', '-p', '--publish', '--network', '--net', '-w', '--workdir', '--env-file', '-u', '--user',
  '--mount', '--entrypoint', '-l', '--label', '--platform', '-h', '--hostname', '--add-host', '--cpus', '-m', '--memory', '--pull',
]);

export function commandBase(command: string): string {
  const base = command.split(/[\\/]/).pop() ?? command;
  return base.replace(/\.(exe|cmd|bat)$/i, '').toLowerCase();
}

function firstPositional(args: readonly string[], start: number, flagsWithValue: ReadonlySet<string> = new Set()): number {
  for (let i = start; i < args.length; i++) {
    const a = args[i];
    if (a.startsWith('-')) {
      if (!a.includes('=') && flagsWithValue.has(a)) i++;
      continue;
    }
    return i;
  }
  return -1;
}

function npmSpecIsPinned(spec: string): boolean {
  const at = spec.startsWith('@') ? spec.indexOf('@', 1) : spec.indexOf('@');
  if (at < 0) return false;
  const version = spec.slice(at + 1);
  return version !== '' && version !== 'latest' && version !== 'next';
}

/** `npx pkg`, `pkg@latest`, `uvx pkg` without a version, docker images untagged or `:latest`. */
export function findUnpinnedLauncher(command: string, args: readonly string[]): UnpinnedLauncher | undefined {
  const base = commandBase(command);
  if (base === 'npx' || base === 'bunx' || base === 'pnpx') {
    const pkgFlag = args.findIndex((a) => a === '-p' || a === '--package');
    const i = pkgFlag >= 0 ? pkgFlag + 1 : firstPositional(args, 0);
    if (i >= 0 && i < args.length && !npmSpecIsPinned(args[i])) return { launcher: base, hint: `${args[i].replace(/@(latest|next)$/, '')}@<version>`, argIndex: i };
    return undefined;
  }
  if (base === 'uvx' || (base === 'uv' && args[0] === 'tool' && args[1] === 'run')) {
    const fromFlag = args.findIndex((a) => a === '--from');
    const i = fromFlag >= 0 ? fromFlag + 1 : firstPositional(args, base === 'uv' ? 2 : 0, new Set(['--with', '--python', '-p']));
    if (i >= 0 && i < args.length && !/==|@(?!latest$)[\w.]/.test(args[i])) return { launcher: 'uvx', hint: `${args[i].replace(/@latest$/, '')}==<version>`, argIndex: i };
    return undefined;
  }
  if ((base === 'docker' || base === 'podman') && args[0] === 'run') {
    const i = firstPositional(args, 1, DOCKER_FLAGS_WITH_VALUE);
    if (i < 0) return undefined;
    const image = args[i];
    if (image.includes('@sha256:')) return undefined;
    const lastSegment = image.split('/').pop() ?? image;
    const tag = lastSegment.includes(':') ? lastSegment.split(':').pop() : undefined;
    if (!tag || tag === 'latest') return { launcher: `${base} image`, hint: `${image.replace(/:latest$/, '')}:<tag> or @sha256:<digest>`, argIndex: i };
  }
  return undefined;
}

/**
 * A literal credential inside a string: where it starts and ends in the text, and a name for it
 * (a header, a flag or the URL scheme) that the importer uses for the input id.
 */
export interface CredentialSpan {
  start: number;
  end: number;
  name: string;
}

/** An argument that holds a literal credential: its index in args and the secret's span in it. */
export interface ArgCredential extends CredentialSpan {
  index: number;
}

/** An authentication scheme word before a credential (`Bearer abc`): the credential is what follows. */
const AUTH_SCHEME = /^(?:Bearer|Basic|Token|Bot|ApiKey|Digest)\s+/i;
/** Flags whose value is an HTTP header, as mcp-remote, curl and most proxies spell them. */
const HEADER_FLAGS = new Set(['--header', '-H', '--headers', '--http-header']);
const FLAG = /^--?[A-Za-z][\w-]*$/;

/** A span, unless it is empty or holds a reference (`${input:x}`, `${env:X}`: a name, not a secret). */
function literalSpan(text: string, start: number, end: number, name: string): CredentialSpan | undefined {
  const value = text.slice(start, end);
  if (value.trim() === '' || value.includes('${')) return undefined;
  return { start, end, name };
}

/** The credential of `value` after an optional scheme word: `Bearer abc` -> `abc`. */
function afterScheme(text: string, from: number, name: string): CredentialSpan | undefined {
  const scheme = AUTH_SCHEME.exec(text.slice(from));
  return literalSpan(text, from + (scheme ? scheme[0].length : 0), text.length, name);
}

/** `Authorization: Bearer abc`, `X-Api-Key: abc`, `Cookie: a=b`: the credential of a header line (from `at`). */
function headerLineCredential(text: string, at = 0): CredentialSpan | undefined {
  const header = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)[ \t]*:[ \t]*/.exec(text.slice(at));
  if (!header || !isCredentialName(header[1])) return undefined;
  return afterScheme(text, at + header[0].length, header[1]);
}

/** The first `:` in text[from, to) that is not inside a `${...}` reference; -1 if none. */
function colonOutsideReferences(text: string, from: number, to: number): number {
  for (let i = from; i < to; i++) {
    if (text[i] === '$' && text[i + 1] === '{') {
      const close = text.indexOf('}', i);
      if (close < 0 || close >= to) return -1;
      i = close;
    } else if (text[i] === ':') return i;
  }
  return -1;
}

/**
 * The passwords written into connection strings (`postgresql://app:PASSWORD@host/app`,
 * `redis://:PASSWORD@host`, any `scheme://user:password@`): the userinfo's part after its first
 * colon. The authority ends at the first `/`, `?`, `#` or space; its userinfo at its last `@`.
 */
export function connectionStringPasswords(text: string): CredentialSpan[] {
  const out: CredentialSpan[] = keyValuePasswords(text);
  if (!text.includes('://')) return out;
  const scheme = /([A-Za-z][A-Za-z0-9+.-]*):\/\//g;
  for (let m = scheme.exec(text); m; m = scheme.exec(text)) {
    const authorityStart = m.index + m[0].length;
    let authorityEnd = authorityStart;
    while (authorityEnd < text.length && !/[/?#\s"'<>]/.test(text[authorityEnd])) authorityEnd++;
    const at = text.lastIndexOf('@', authorityEnd - 1);
    if (at < authorityStart) continue;
    const colon = colonOutsideReferences(text, authorityStart, at);
    if (colon < 0) continue;
    const span = literalSpan(text, colon + 1, at, `${m[1].toLowerCase()}-password`);
    if (span) out.push(span);
    scheme.lastIndex = authorityEnd;
  }
  return out;
}

/**
 * Keys of `key=value;...` connection strings (ADO.NET, ODBC, JDBC properties, Azure Storage and
 * Service Bus) whose value is a credential, whatever the variable holding the string is called.
 */
const CONNECTION_SECRET_KEYS = /(?:^|;)\s*(password|pwd|accountkey|sharedaccesskey|sharedaccesssignature)\s*=\s*/gi;

/** The credential values of a `key=value;...` connection string (`Server=...;Password=abc`). */
function keyValuePasswords(text: string): CredentialSpan[] {
  if (!text.includes('=') || !text.includes(';')) return [];
  const out: CredentialSpan[] = [];
  CONNECTION_SECRET_KEYS.lastIndex = 0;
  for (let m = CONNECTION_SECRET_KEYS.exec(text); m; m = CONNECTION_SECRET_KEYS.exec(text)) {
    const start = m.index + m[0].length;
    const semicolon = text.indexOf(';', start);
    const end = semicolon < 0 ? text.length : semicolon;
    const span = literalSpan(text, start, end, m[1].toLowerCase());
    if (span) out.push(span);
    CONNECTION_SECRET_KEYS.lastIndex = end;
  }
  return out;
}

/**
 * URL query parameters that carry a credential: credential-named ones (`api_key`, `token`) and
 * signatures that grant access by themselves (an Azure SAS `sig`, S3 and GCS presigned URLs).
 */
export function isQueryCredentialName(name: string): boolean {
  return isCredentialName(name) || /^(sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature)$/i.test(name);
}

/** `-p VALUE`: a password (mysql, psql wrappers) unless it reads as a port or a port mapping (docker, servers). */
const PORT_LIKE = /^(?:[\d.]+:)?\d+(?:-\d+)?(?::\d+(?:-\d+)?)?(?:\/(?:tcp|udp))?$/i;

/**
 * Literal credentials in a command line, and where in each argument: a header after `--header`
 * / `-H` (or `--header=...`) whose name is a credential name (the part after a scheme word);
 * the value of a credential-named flag (`--token abc`, `--api-key=abc`, `--password abc`); the
 * password of a connection string; a well-known key shape (the whole argument). Parts holding a
 * reference (`${...}`) are names, not secrets. One detector for the lint and the importer.
 */
export function findArgCredentials(args: readonly string[]): ArgCredential[] {
  const out: ArgCredential[] = [];
  const push = (index: number, span: CredentialSpan | undefined) => {
    if (span) out.push({ index, ...span });
    return span !== undefined;
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const previous = i > 0 ? args[i - 1] : undefined;
    if (previous !== undefined && HEADER_FLAGS.has(previous)) {
      if (push(i, headerLineCredential(arg))) continue;
    }
    const eq = arg.indexOf('=');
    if (arg.startsWith('-') && eq > 0) {
      const flag = arg.slice(0, eq);
      if (HEADER_FLAGS.has(flag) && push(i, headerLineCredential(arg, eq + 1))) continue;
      if (FLAG.test(flag) && isCredentialName(flag) && push(i, afterScheme(arg, eq + 1, flag.replace(/^-+/, '')))) continue;
    }
    if (previous !== undefined && FLAG.test(previous) && isCredentialName(previous) && !arg.startsWith('-')) {
      if (push(i, afterScheme(arg, 0, previous.replace(/^-+/, '')))) continue;
    }
    if (previous === '-p' && !arg.startsWith('-') && !PORT_LIKE.test(arg)) {
      if (push(i, literalSpan(arg, 0, arg.length, 'p'))) continue;
    }
    const passwords = connectionStringPasswords(arg);
    if (passwords.length) {
      for (const span of passwords) push(i, span);
      continue;
    }
    if (!arg.includes('${') && looksLikeCredentialValue(arg)) push(i, { start: 0, end: arg.length, name: 'arg' });
  }
  return out;
}

/**
 * Names that change how a process finds or loads code: set from an envFile (or env), they can
 * make any command run something else. The launch review shows them as a danger.
 */
export function isLoaderVariable(name: string): boolean {
  const upper = name.toUpperCase();
  return LOADER_VARIABLES.has(upper) || /^(DYLD_|LD_)/.test(upper);
}

const LOADER_VARIABLES = new Set([
  'PATH', 'NODE_OPTIONS', 'NODE_PATH', 'PYTHONPATH', 'PYTHONSTARTUP', 'PYTHONHOME', 'PERL5LIB', 'PERL5OPT', 'RUBYLIB', 'RUBYOPT',
  'JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS', 'JDK_JAVA_OPTIONS', 'CLASSPATH', 'BASH_ENV', 'ENV', 'PROMPT_COMMAND', 'GIT_SSH_COMMAND', 'GIT_EXEC_PATH',
  'DOTNET_STARTUP_HOOKS', 'CORECLR_PROFILER_PATH', 'ELECTRON_RUN_AS_NODE', 'NPM_CONFIG_PREFIX', 'PYTHONWARNINGS', 'GCONV_PATH', 'LUA_PATH', 'LUA_CPATH',
]);
