import type { DeclaredServer } from '../declaration/declarationModel';
import { isLoaderVariable } from './securityLint';
import { templateText } from '../declaration/template';
import { formatMessage } from '../problems/problems';

/**
 * What a user must see before approving a server in the `pinned` trust mode: the exact,
 * untruncated launch (command line, cwd, env NAMES, env file; or URL and header NAMES) and
 * the dangerous patterns in it. Pure: a declared server in, text lines and findings out.
 * Values never appear: a reference is shown as the variable it came from (`${input:id}`,
 * `${env:NAME}`), and env and header values are not shown at all.
 */

export type DangerCode = 'loader-variable' | 'sudo' | 'recursive-delete' | 'pipe-to-shell' | 'fetch-and-run' | 'shell-command' | 'encoded-command' | 'insecure-url';

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
}

/** POSIX-shell quoting for display, so that the line shows where each argument starts and ends. */
export function shellQuote(arg: string): string {
  if (arg !== '' && /^[A-Za-z0-9_@%+=:,./${}-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'cmd', 'powershell', 'pwsh']);

function base(command: string): string {
  return (command.split(/[\\/]/).pop() ?? command).replace(/\.(exe|cmd|bat)$/i, '').toLowerCase();
}

/** Finds dangerous patterns in a command and its arguments (each kind reported once). */
export function findDangers(command: string, args: readonly string[]): Danger[] {
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
  return [...found.values()];
}

export function reviewLaunch(server: DeclaredServer): LaunchReview {
  const common = { serverName: server.serverName, name: server.name, transport: server.transport };
  if (server.transport === 'stdio') {
    const command = templateText(server.command);
    const args = server.args.map(templateText);
    const envFileNames = server.envFileNames ?? [];
    // Declared or from the envFile, a variable that redirects code loading is shown the same way.
    const loaders = [...new Set([...Object.keys(server.env), ...envFileNames].filter(isLoaderVariable))];
    return {
      ...common,
      launch: [command, ...args].map(shellQuote).join(' '),
      cwd: templateText(server.cwd),
      envNames: Object.keys(server.env),
      envFile: server.envFile === undefined ? undefined : templateText(server.envFile),
      envFileNames,
      headerNames: [],
      dangers: [...(loaders.length ? [{ code: 'loader-variable' as const, token: loaders.join(', ') }] : []), ...findDangers(command, args)],
    };
  }
  const url = templateText(server.url);
  const dangers: Danger[] = /^http:\/\//i.test(url) && !/^http:\/\/(localhost|127\.|\[::1\])/i.test(url) ? [{ code: 'insecure-url', token: 'http://' }] : [];
  return { ...common, launch: url, envNames: [], envFileNames: [], headerNames: Object.keys(server.headers), dangers };
}

/**
 * The review as plain English lines, in the words of the editor's dialog: what `dsh-bridge approve`
 * prints and what the DSH plugin puts in DSH's in-turn approval request.
 */
export function reviewLines(server: DeclaredServer, review: LaunchReview = reviewLaunch(server)): string[] {
  const lines = [`Server "${review.name}" (DSH name ${review.serverName}, ${review.transport})`];
  for (const d of review.dangers) lines.push(`  DANGER: ${formatMessage(DANGER_MESSAGES[d.code], { token: d.token })}`);
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
