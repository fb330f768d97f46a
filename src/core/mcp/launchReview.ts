import type { DeclaredServer } from '../declaration/declarationModel';
import { findUnpinnedLauncher, isLoaderVariable } from './securityLint';
import { templateText } from '../declaration/template';
import { formatMessage, PROBLEM_CODES } from '../problems/problems';
import { findHiddenCharacters, visibleLine } from '../json/visibleText';

/**
 * What a user must see before approving a server in the `pinned` trust mode: the exact,
 * untruncated launch (command line, cwd, env NAMES, env file; or URL and header NAMES) and
 * the dangerous patterns in it. Pure: a declared server in, text lines and findings out.
 * Values never appear: a reference is shown as the variable it came from (`${input:id}`,
 * `${env:NAME}`), and env and header values are not shown at all. Every text of the review is
 * shown with its hidden characters escaped (visibleText.ts), so a carriage return or an ANSI
 * code in an argument cannot paint over the line; the danger rules read the real text.
 */

export type DangerCode =
  | 'loader-variable' | 'sudo' | 'recursive-delete' | 'pipe-to-shell' | 'fetch-and-run' | 'shell-command' | 'encoded-command' | 'insecure-url'
  | 'preload-module' | 'inline-code' | 'code-url' | 'hidden-characters';

/** English templates of the findings (l10n keys); `{token}` is the part that matched. */
export const DANGER_MESSAGES: Record<DangerCode, string> = {
  'loader-variable': 'Sets {token}, which changes which code the process loads or runs.',
  'sudo': 'Runs with elevated privileges ({token}).',
  'recursive-delete': 'Deletes files recursively ({token}).',
  'pipe-to-shell': 'Pipes text into a shell ({token}).',
  'fetch-and-run': 'Downloads something and runs it ({token}).',
  'shell-command': 'Runs a shell command line ({token}): everything in it runs, not only the server.',
  'encoded-command': 'Runs an encoded command that cannot be read ({token}).',
  'insecure-url': 'Connects over unencrypted http:// ({token}).',
  'preload-module': 'Loads another module before the server\'s code ({token}).',
  'inline-code': 'Runs code written on the command line ({token}).',
  'code-url': 'Loads code from a {token} URL on the command line.',
  'hidden-characters': 'An argument holds characters that change how it is shown ({token}); they are shown escaped.',
};

export interface Danger {
  code: DangerCode;
  token: string;
}

export interface LaunchReview {
  serverName: string;
  name: string;
  transport: DeclaredServer['transport'];
  /** The full command line (stdio) or URL (http), untruncated; references as `${input:id}`. */
  launch: string;
  cwd?: string;
  envNames: string[];
  envFile?: string;
  /** The variables the envFile set at export (names only). */
  envFileNames: string[];
  headerNames: string[];
  dangers: Danger[];
  /** A launcher that runs whatever version is newest at start (`npx pkg`, `uvx pkg`, an untagged image): problem `unpinned-package`. */
  unpinned?: { launcher: string; hint: string };
}

/**
 * A launch the user must read before approving it: a danger, or a launcher whose code can change
 * under the same pin. It never starts checked in a review and is never one keypress from approval.
 */
export function isFlagged(review: LaunchReview): boolean {
  return review.dangers.length > 0 || review.unpinned !== undefined;
}

/**
 * One finding of a review as every face shows it: a danger of the launch, or an unpinned launcher
 * (the note mcp.json carries as problem `unpinned-package`). An English template (an l10n key)
 * and its arguments; `formatMessage` or a face's translation words it.
 */
export interface ReviewWarning {
  kind: 'danger' | 'unpinned';
  code: DangerCode | 'unpinned-package';
  template: string;
  args: Record<string, string>;
}

/** Every finding of a review, dangers first: the one list `dsh-bridge approve`, the editor and DSH's approval request show. */
export function reviewWarnings(review: LaunchReview): ReviewWarning[] {
  return [
    ...review.dangers.map((d): ReviewWarning => ({ kind: 'danger', code: d.code, template: DANGER_MESSAGES[d.code], args: { token: d.token } })),
    ...(review.unpinned ? [{ kind: 'unpinned' as const, code: 'unpinned-package' as const, template: PROBLEM_CODES['unpinned-package'][1], args: { ...review.unpinned } }] : []),
  ];
}

/**
 * POSIX-shell quoting, so that a line shows where each argument starts and ends. For display a
 * `${input:x}` stays as written; `{ runnable: true }` quotes `$`, `{` and `}` too, for a command
 * the user copies into a shell (a fix).
 */
export function shellQuote(arg: string, { runnable = false } = {}): string {
  if (arg !== '' && (runnable ? /^[A-Za-z0-9_@%+=:,./-]+$/ : /^[A-Za-z0-9_@%+=:,./${}-]+$/).test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'cmd', 'powershell', 'pwsh']);
/**
 * Runtimes and interpreters whose own options load or run code besides the program named: the
 * command's base name (a version may follow), the options that take their value as the next
 * argument, and the options that load a module first or run the code given on the command line.
 * The JavaScript runtimes' words before the program that are not options: `run`, `serve` (bun,
 * deno), and `eval`, which runs code (deno).
 */
interface Interpreter {
  command: RegExp;
  takesValue: RegExp;
  preload?: RegExp;
  inline: RegExp;
}
const JS_RUNTIME: Interpreter = {
  command: /^(node|nodejs|bun|deno)[\d.]*$/,
  takesValue: /^(--import|--require|-r|--loader|--experimental-loader|--preload|-e|--eval|-p|--print|--import-map|--config|-c)$/,
  preload: /^(--import|--require|-r|--loader|--experimental-loader|--preload)(?==|$)/,
  inline: /^(-e|--eval|-p|--print)(?==|$)/,
};
const INTERPRETERS: readonly Interpreter[] = [
  JS_RUNTIME,
  { command: /^(python|pypy)[\d.]*$/, takesValue: /^-[WX]$/, inline: /^-[A-Za-z]*c$/ },
  { command: /^perl[\d.]*$/, takesValue: /^-I$/, inline: /^-[A-Za-z]*[eE]$/ },
  { command: /^ruby[\d.]*$/, takesValue: /^-[rIC]$/, inline: /^-[A-Za-z]*e$/ },
  { command: /^php[\d.]*$/, takesValue: /^-[dcz]$/, inline: /^-r$/ },
];
/** A URL whose content is code: `data:` anywhere; `javascript:` and `file:` as the module a preload option loads. */
const CODE_URL = /(?:^|[\s=,'"(])(data):/i;
const MODULE_URL = /^(javascript|file|data):/i;
/** How much of an argument with hidden characters its finding quotes (the whole line is shown with it). */
const HIDDEN_TOKEN_MAX = 80;

function base(command: string): string {
  return (command.split(/[\\/]/).pop() ?? command).replace(/\.(exe|cmd|bat)$/i, '').toLowerCase();
}

/** Finds dangerous patterns in a command and its arguments (each kind reported once). */
function findDangers(command: string, args: readonly string[]): Danger[] {
  const found = new Map<DangerCode, Danger>();
  const add = (code: DangerCode, token: string) => {
    if (!found.has(code)) found.set(code, { code, token });
  };
  const words = [command, ...args];
  const line = words.join(' ');
  const commandBase = base(command);

  for (const w of words) {
    const b = base(w);
    if (b === 'sudo' || b === 'doas' || b === 'pkexec' || b === 'runas') add('sudo', w);
  }
  const elevated = /(?:^|[\s;&|(])(sudo|doas|pkexec)\s/.exec(line);
  if (elevated) add('sudo', elevated[1]);
  if (/(^|[\s;&|(])su\s+(-|root\b|-c\b)/.test(line)) add('sudo', 'su');

  const rm = /\brm\s+(?:-[A-Za-z]*[rR][A-Za-z]*\s+(?:-[A-Za-z]+\s+)*|--recursive\s)/.exec(line);
  if (rm) add('recursive-delete', rm[0].trim());
  if (/\b(Remove-Item|rd|rmdir)\b[^|;&]*\s(-Recurse|\/s)\b/i.test(line)) add('recursive-delete', /\b(Remove-Item|rd|rmdir)\b/i.exec(line)![0]);

  const fetch = /\b(curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b/i.exec(line);
  const pipe = /\|\s*(sudo\s+)?(sh|bash|zsh|dash|ksh|fish|python3?|node|perl|ruby|iex|Invoke-Expression|pwsh|powershell)\b/i.exec(line);
  if (pipe) add('pipe-to-shell', pipe[0].replace(/\s+/g, ' ').trim());
  const substitution = /(<\(|\$\(|`)\s*(curl|wget)\b/i.exec(line);
  if (fetch && (pipe || substitution || /\b(iex|Invoke-Expression)\b/i.test(line))) add('fetch-and-run', fetch[0]);

  if (SHELLS.has(commandBase)) {
    const flag = args.find((a) => /^(-c|-lc|-ic|\/c|\/k|-Command|-c\w*)$/i.test(a) || /^-[a-z]*c$/.test(a));
    if (flag) add('shell-command', `${commandBase} ${flag}`);
  }
  const encoded = args.find((a) => /^-(e|ec|enc|encodedcommand|encodedcommand:?)$/i.test(a));
  if (encoded && (commandBase === 'powershell' || commandBase === 'pwsh')) add('encoded-command', `${commandBase} ${encoded}`);

  const interpreter = INTERPRETERS.find((i) => i.command.test(commandBase));
  if (interpreter) {
    // Its own options come before the program (a script, a module, `--`): later words are the program's.
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (interpreter === JS_RUNTIME && /^(run|serve|eval)$/.test(a)) {
        if (a === 'eval') add('inline-code', `${commandBase} ${a}`);
        continue;
      }
      if (a === '--' || !a.startsWith('-')) break;
      const preload = interpreter.preload?.exec(a);
      const inline = interpreter.inline.exec(a);
      const separate = interpreter.takesValue.test(a);
      if (preload) {
        add('preload-module', `${commandBase} ${preload[0]}`);
        const url = MODULE_URL.exec(separate ? args[i + 1] ?? '' : a.slice(preload[0].length + 1));
        if (url) add('code-url', `${url[1].toLowerCase()}:`);
      }
      if (inline) add('inline-code', `${commandBase} ${inline[0]}`);
      if (separate) i++;
    }
  }
  for (const w of words) {
    const url = CODE_URL.exec(w);
    if (url) add('code-url', `${url[1].toLowerCase()}:`);
  }
  for (const w of words) {
    const first = findHiddenCharacters(w)[0];
    if (!first) continue;
    // The argument escaped, from a little before its first hidden character.
    const shown = visibleLine(w);
    const from = Math.max(0, visibleLine(w.slice(0, first.index)).length - 20);
    add('hidden-characters', `${from ? '\u2026' : ''}${shown.slice(from, from + HIDDEN_TOKEN_MAX)}${from + HIDDEN_TOKEN_MAX < shown.length ? '\u2026' : ''}`);
  }
  return [...found.values()].map((d) => ({ ...d, token: visibleLine(d.token) }));
}

/** The review of a declared server; every text in it is shown text (hidden characters escaped). */
export function reviewLaunch(server: DeclaredServer): LaunchReview {
  const names = (list: readonly string[]) => list.map(visibleLine);
  const common = { serverName: visibleLine(server.serverName), name: visibleLine(server.name), transport: server.transport };
  if (server.transport === 'stdio') {
    const command = templateText(server.command);
    const args = server.args.map(templateText);
    const envFileNames = server.envFileNames ?? [];
    // Declared or from the envFile, a variable that redirects code loading is shown the same way.
    const loaders = [...new Set([...Object.keys(server.env), ...envFileNames].filter(isLoaderVariable))];
    const unpinned = findUnpinnedLauncher(command, args);
    return {
      ...common,
      launch: visibleLine([command, ...args].map((a) => shellQuote(a)).join(' ')),
      cwd: visibleLine(templateText(server.cwd)),
      envNames: names(Object.keys(server.env)),
      envFile: server.envFile === undefined ? undefined : visibleLine(templateText(server.envFile)),
      envFileNames: names(envFileNames),
      headerNames: [],
      dangers: [...(loaders.length ? [{ code: 'loader-variable' as const, token: visibleLine(loaders.join(', ')) }] : []), ...findDangers(command, args)],
      ...(unpinned ? { unpinned: { launcher: unpinned.launcher, hint: visibleLine(unpinned.hint) } } : {}),
    };
  }
  const url = templateText(server.url);
  const dangers: Danger[] = /^http:\/\//i.test(url) && !/^http:\/\/(localhost|127\.|\[::1\])/i.test(url) ? [{ code: 'insecure-url', token: 'http://' }] : [];
  return { ...common, launch: visibleLine(url), envNames: [], envFileNames: [], headerNames: names(Object.keys(server.headers)), dangers };
}

/**
 * The review as plain English lines, in the words of the editor's dialog: what `dsh-bridge approve`
 * prints and what the DSH plugin puts in DSH's in-turn approval request.
 */
export function reviewLines(server: DeclaredServer, review: LaunchReview = reviewLaunch(server)): string[] {
  const lines = [`Server "${review.name}" (DSH name ${review.serverName}, ${review.transport})`];
  for (const w of reviewWarnings(review)) lines.push(`  ${w.kind === 'danger' ? 'DANGER' : 'WARNING'}: ${formatMessage(w.template, w.args)}`);
  if (review.transport === 'stdio') {
    lines.push('  It will run this command on this computer with your user\'s privileges:');
    lines.push(`    ${review.launch}`);
    lines.push(`  Working folder: ${review.cwd ?? '(the workspace folder)'}`);
    lines.push(`  Environment variables (names only): ${review.envNames.length ? review.envNames.join(', ') : 'none'}`);
    if (review.envFile !== undefined) {
      lines.push(`  Environment file: ${review.envFile}`);
      lines.push(`  Variables it sets (names only): ${review.envFileNames.length ? review.envFileNames.join(', ') : 'none'}`);
    }
  } else {
    lines.push('  It will connect to this URL with your user\'s privileges:');
    lines.push(`    ${review.launch}`);
    lines.push(`  Headers (names only): ${review.headerNames.length ? review.headerNames.join(', ') : 'none'}`);
  }
  lines.push(`  Pin: ${server.pin}`);
  return lines;
}
