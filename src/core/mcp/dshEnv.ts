/**
 * The environment DSH gives a stdio MCP server (contract section 3). Pure: the parent
 * environment comes in as a parameter.
 */

/** rc.8 (`@deepseek-ai/dsh-subprocess` scrubbedParentEnv): names DSH drops from what a child inherits. */
const RC8_DROPPED = /KEY|PASSWORD|SECRET|TOKEN/i;
const DSH_PREFIX = /^DSH_/i;

/** 0.2 keeps only these inherited names (and the patterns below). */
const V02_KEPT = new Set([
  'HOME', 'PATH', 'USER', 'SHELL', 'TERM', 'LOGNAME', 'LANG', 'TZ', 'TEMP', 'TMP', 'TMPDIR',
  'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'no_proxy', 'all_proxy',
  'SSL_CERT_FILE', 'SSL_CERT_DIR', 'NODE_EXTRA_CA_CERTS', 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE',
  'SYSTEMROOT', 'SystemRoot', 'WINDIR', 'COMSPEC', 'PATHEXT', 'APPDATA', 'LOCALAPPDATA', 'USERPROFILE', 'PROGRAMDATA', 'ProgramFiles', 'ProgramFiles(x86)',
]);
const V02_KEPT_PATTERN = /^(LC_[A-Z_]+|XDG_[A-Z_]+_HOME)$/;

/** Which DSH line's rule: `rc.8` (what npm serves; drop credential-shaped names) or `0.2` (allow-list). */
export type DshEnvRule = 'rc.8' | '0.2';

/** The parent environment as DSH passes it on, before the row's explicit `env`. */
function scrubbedParentEnv(parent: Readonly<Record<string, string | undefined>>, rule: DshEnvRule = 'rc.8'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    const keep = rule === 'rc.8'
      ? !RC8_DROPPED.test(name) && !DSH_PREFIX.test(name)
      : V02_KEPT.has(name) || V02_KEPT_PATTERN.test(name);
    if (keep) Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** The child's whole environment: the scrubbed parent, then the row's explicit `env` (explicit wins). */
export function dshServerEnv(parent: Readonly<Record<string, string | undefined>>, explicit: Readonly<Record<string, string>>, rule: DshEnvRule = 'rc.8'): Record<string, string> {
  const out = scrubbedParentEnv(parent, rule);
  for (const [name, value] of Object.entries(explicit)) Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  return out;
}
