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

export function nameWords(name: string): string[] {
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
const CREDENTIAL_SHAPES: RegExp[] = [
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

function commandBase(command: string): string {
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

/** `--token value` / `--api-key=value`: the index of a literal credential in args. */
export function credentialArgIndices(args: ReadonlyArray<Template>): number[] {
  const out: number[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const text = literalText(a);
    const eq = text.indexOf('=');
    if (text.startsWith('-') && eq > 0) {
      if (isCredentialName(text.slice(0, eq)) && typeof a === 'string' && text.slice(eq + 1).trim() !== '') out.push(i);
    } else if (text.startsWith('-') && isCredentialName(text) && i + 1 < args.length) {
      const next = args[i + 1];
      if (typeof next === 'string' && next.trim() !== '' && !next.startsWith('-')) out.push(i + 1);
    }
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
