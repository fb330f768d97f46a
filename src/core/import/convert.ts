import { connectionStringPasswords, findArgCredentials, isCredentialName, isQueryCredentialName, looksLikeCredentialValue, type CredentialSpan } from '../mcp/securityLint';
import { CLIENT_NAMES, makeNote, type ImportClient, type ImportNote } from './importNotes';
import type { SourceServer } from './clientFiles';
import { isRecord } from '../json/jsonValue';

/**
 * One server entry of another client's file, as a `.vscode/mcp.json` entry with the same
 * meaning, and a note for every field whose spelling changed or that could not be carried.
 * Literal credentials become `${input:...}` references; their values are handed back apart
 * from the entry (for secret storage), never written into it. Facts: docs/import.md.
 */

/** A literal credential taken out of an entry: `value` undefined for a placeholder the user must enter. */
export interface TakenSecret {
  /** Dotted source field (`env.API_KEY`). */
  field: string;
  value: string | undefined;
}

/** Hands out the input id for a secret of this server (`key`: a readable suffix such as the env name). */
export type InputAllocator = (key: string, secret: TakenSecret) => string;

export interface ConvertedServer {
  entry: Record<string, unknown> | undefined;
  notes: ImportNote[];
}

type Json = Record<string, unknown>;

const ENV_NAME = '[A-Za-z_][A-Za-z0-9_]*';
/** `${VAR}` and `${VAR:-default}` (Claude Code, Gemini CLI). */
const BRACED = new RegExp(`\\$\\{(${ENV_NAME})(?::-([^}]*))?\\}`, 'g');
/** `${VAR}`, `${VAR:-default}` and `$VAR` (Gemini CLI). */
const BRACED_OR_BARE = new RegExp(`\\$\\{(${ENV_NAME})(?::-([^}]*))?\\}|\\$(${ENV_NAME})`, 'g');

const PLACEHOLDER = /^(?:<[^<>]*>|\[[^[\]]*\]|\{\{[^{}]*\}\}|your[-_ ].*|.*[-_ ]here|x{4,}|\*{3,}|\.{3}|changeme|placeholder|todo|redacted)$/i;
const SCHEME = /^(Bearer|Basic|Token|Bot|ApiKey)(\s+)(.+)$/i;

export function convertServer(client: ImportClient, source: SourceServer, allocate: InputAllocator): ConvertedServer {
  const notes: ImportNote[] = [];
  const { entry: raw, file, name: server } = source;
  const at = (field: string) => ({ file, server, field });
  const clientName = CLIENT_NAMES[client];
  const skip = (note: ImportNote): ConvertedServer => ({ entry: undefined, notes: [note] });

  if ((client === 'codex' && raw.enabled === false) || (client !== 'codex' && raw.disabled === true)) {
    return skip(makeNote('server-disabled', at(client === 'codex' ? 'enabled' : 'disabled'), { client: clientName }));
  }

  // The transport, by each client's own rule.
  const str = (key: string) => (typeof raw[key] === 'string' ? (raw[key] as string) : undefined);
  let transport: 'stdio' | 'http' | 'sse' | undefined;
  let urlField: string | undefined;
  const type = raw.type;
  if (client === 'gemini') {
    if (str('httpUrl') !== undefined) [transport, urlField] = ['http', 'httpUrl'];
    else if (str('url') !== undefined) [transport, urlField] = [type === 'http' ? 'http' : 'sse', 'url'];
    else if (str('command') !== undefined) transport = 'stdio';
    else if (raw.tcp !== undefined) return skip(makeNote('unsupported-transport', at('tcp'), { transport: 'tcp (WebSocket)' }));
  } else if (client === 'codex') {
    if (str('command') !== undefined && raw.url !== undefined) {
      return skip(makeNote('invalid-server', at('url'), { client: clientName, reason: 'both "command" and "url"' }));
    }
    if (str('command') !== undefined) transport = 'stdio';
    else if (str('url') !== undefined) [transport, urlField] = ['http', 'url'];
  } else {
    if (typeof type === 'string' && /^(ws|websocket)$/i.test(type)) return skip(makeNote('unsupported-transport', at('type'), { transport: `"${type}"` }));
    if (type === 'sse') [transport, urlField] = ['sse', 'url'];
    else if (type === 'http' || type === 'streamable-http' || type === 'streamableHttp') [transport, urlField] = ['http', 'url'];
    else if (type === 'stdio' || (type === undefined && str('command') !== undefined)) transport = 'stdio';
    else if (type === undefined && str('url') !== undefined) [transport, urlField] = ['http', 'url'];
    else if (type !== undefined) return skip(makeNote('invalid-server', at('type'), { client: clientName, reason: 'an unknown "type"' }));
  }
  if (transport === 'stdio' && str('command') === undefined) transport = undefined;
  if (transport && transport !== 'stdio' && (urlField === undefined || str(urlField) === undefined)) transport = undefined;
  if (!transport) return skip(makeNote('invalid-server', { file, server }, { client: clientName, reason: 'no "command" or URL' }));

  const vars = (value: string, field: string) => convertVariables(client, value, field, at(field), notes);
  const secret = (key: string, field: string, value: string | undefined) => {
    const id = allocate(key, { field, value });
    notes.push(makeNote(value === undefined ? 'placeholder-to-input' : 'secret-to-input', at(field), { reference: `\${input:${id}}` }));
    return `\${input:${id}}`;
  };
  /** A whole literal value that holds a credential: moved out. Mixed values with references are left. */
  const literalSecret = (value: string, key: string, field: string): string => {
    if (value.includes('${') || value.trim() === '') return value;
    return secret(key, field, PLACEHOLDER.test(value.trim()) ? undefined : value);
  };

  const out: Json = { type: transport };
  if (transport === 'http' && urlField === 'httpUrl') notes.push(makeNote('http-url', at('httpUrl')));
  if (transport === 'sse') notes.push(makeNote('sse-transport', at(urlField!), { client: clientName }));
  if (client !== 'gemini' && transport === 'stdio' && raw.url !== undefined) notes.push(makeNote('field-dropped', at('url')));

  if (transport === 'stdio') {
    out.command = vars(raw.command as string, 'command');
    if (raw.args !== undefined) {
      if (!Array.isArray(raw.args)) notes.push(makeNote('invalid-field', at('args'), { reason: 'not a list' }));
      else {
        const args: string[] = [];
        const fields: string[] = [];
        raw.args.forEach((a, i) => {
          if (typeof a !== 'string' && typeof a !== 'number') {
            notes.push(makeNote('invalid-field', at(`args[${i}]`), { reason: 'not a string' }));
            return;
          }
          args.push(vars(String(a), `args[${i}]`));
          fields.push(`args[${i}]`);
        });
        // Only the secret part of an argument becomes the reference: VS Code resolves ${input:} inside a string.
        const found = findArgCredentials(args);
        for (let i = 0; i < args.length; i++) {
          const spans = found.filter((c) => c.index === i);
          if (spans.length) args[i] = withoutSpans(args[i], spans, fields[i], secret);
        }
        out.args = args;
      }
    }
    const env: Json = {};
    if (raw.env !== undefined) {
      if (!isRecord(raw.env)) notes.push(makeNote('invalid-field', at('env'), { reason: 'not an object' }));
      else for (const [k, v] of Object.entries(raw.env)) {
        const field = `env.${k}`;
        if (typeof v === 'number') env[k] = v;
        else if (typeof v === 'string' || typeof v === 'boolean') {
          const value = vars(String(v), field);
          env[k] = isCredentialName(k) || looksLikeCredentialValue(value) ? literalSecret(value, k, field)
            : withoutSpans(value, connectionStringPasswords(value).map((c) => ({ ...c, name: k })), field, secret);
        } else notes.push(makeNote('invalid-field', at(field), { reason: 'not a string' }));
      }
    }
    if (client === 'codex' && raw.env_vars !== undefined) {
      // Codex passes these inherited variables through; VS Code spells that ${env:NAME}.
      const names = Array.isArray(raw.env_vars) ? raw.env_vars.filter((n): n is string => typeof n === 'string' && new RegExp(`^${ENV_NAME}$`).test(n)) : [];
      if (!Array.isArray(raw.env_vars) || names.length !== raw.env_vars.length) notes.push(makeNote('invalid-field', at('env_vars'), { reason: 'not a list of variable names' }));
      for (const n of names) if (!Object.hasOwn(env, n)) env[n] = `\${env:${n}}`;
      if (names.length) notes.push(makeNote('field-converted', at('env_vars'), { to: `"env" entries ${names.map((n) => `"${n}": "\${env:${n}}"`).join(', ')}` }));
    }
    if (Object.keys(env).length) out.env = env;
    if (client === 'cursor' && typeof raw.envFile === 'string') out.envFile = vars(raw.envFile, 'envFile');
    if (typeof raw.cwd === 'string') out.cwd = vars(raw.cwd, 'cwd');
  } else {
    const url = urlWithoutSecrets(vars(raw[urlField!] as string, urlField!), urlField!, secret);
    out.url = url.url;
    const headers: Json = {};
    const headerSources: Array<[string, unknown]> = client === 'codex' ? [['http_headers', raw.http_headers]] : [['headers', raw.headers]];
    for (const [field, map] of headerSources) {
      if (map === undefined) continue;
      if (!isRecord(map)) {
        notes.push(makeNote('invalid-field', at(field), { reason: 'not an object' }));
        continue;
      }
      for (const [k, v] of Object.entries(map)) {
        if (typeof v !== 'string') {
          notes.push(makeNote('invalid-field', at(`${field}.${k}`), { reason: 'not a string' }));
          continue;
        }
        headers[k] = headerWithoutSecret(vars(v, `${field}.${k}`), k, `${field}.${k}`, secret);
      }
    }
    if (client === 'codex') {
      if (isRecord(raw.env_http_headers)) {
        for (const [k, v] of Object.entries(raw.env_http_headers)) {
          if (typeof v !== 'string' || !new RegExp(`^${ENV_NAME}$`).test(v)) {
            notes.push(makeNote('invalid-field', at(`env_http_headers.${k}`), { reason: 'not a variable name' }));
            continue;
          }
          headers[k] = `\${env:${v}}`;
          notes.push(makeNote('field-converted', at(`env_http_headers.${k}`), { to: `"headers": {"${k}": "\${env:${v}}"}` }));
        }
      } else if (raw.env_http_headers !== undefined) notes.push(makeNote('invalid-field', at('env_http_headers'), { reason: 'not an object' }));
      if (typeof raw.bearer_token_env_var === 'string' && new RegExp(`^${ENV_NAME}$`).test(raw.bearer_token_env_var)) {
        headers.Authorization = `Bearer \${env:${raw.bearer_token_env_var}}`;
        notes.push(makeNote('field-converted', at('bearer_token_env_var'), { to: `"headers": {"Authorization": "Bearer \${env:${raw.bearer_token_env_var}}"}` }));
      } else if (raw.bearer_token_env_var !== undefined) notes.push(makeNote('invalid-field', at('bearer_token_env_var'), { reason: 'not a variable name' }));
      if (typeof raw.bearer_token === 'string' && raw.bearer_token.trim() !== '') {
        headers.Authorization = `Bearer ${literalSecret(raw.bearer_token, 'Authorization', 'bearer_token')}`;
      }
    }
    if (url.basic) {
      // A URL cannot carry credentials to DSH (the export refuses url-credentials, and Node's fetch refuses such a
      // URL): they go as the Basic Authorization header an HTTP client makes of them, unless the entry sets its own.
      const own = Object.keys(headers).find((k) => k.toLowerCase() === 'authorization');
      if (own !== undefined) notes.push(makeNote('url-credentials-dropped', at(urlField!), { header: own }));
      else if (url.basic.value === undefined) notes.push(makeNote('url-credentials-placeholder', at(urlField!)));
      else {
        const id = allocate('Authorization', { field: urlField!, value: url.basic.value });
        headers.Authorization = `Basic \${input:${id}}`;
        notes.push(makeNote('url-credentials-to-header', at(urlField!), { reference: `\${input:${id}}` }));
      }
    }
    if (Object.keys(headers).length) out.headers = headers;
    if (client === 'claude' && isRecord(raw.oauth)) {
      if (typeof raw.oauth.clientId === 'string') out.oauth = { clientId: raw.oauth.clientId };
      for (const k of Object.keys(raw.oauth)) if (k !== 'clientId') notes.push(makeNote('field-dropped', at(`oauth.${k}`)));
    }
  }

  // Everything else: dropped, each with the reason that fits it.
  for (const key of Object.keys(raw)) {
    if (handled(client, key, transport, urlField, raw)) continue;
    const field = key;
    if (/^(enabled_tools|disabled_tools|includeTools|excludeTools)$/.test(key)) {
      const tools = Array.isArray(raw[key]) ? (raw[key] as unknown[]).filter((t) => typeof t === 'string').join(', ') : '';
      notes.push(makeNote('tool-filter-dropped', at(field), { tools: tools || 'none' }));
    } else if (/^(timeout|startup_timeout_sec|startup_timeout_ms|tool_timeout_sec)$/.test(key)) {
      notes.push(makeNote('timeout-dropped', at(field)));
    } else if (key === 'trust') {
      if (raw.trust === true) notes.push(makeNote('trust-dropped', at(field)));
    } else if (client === 'codex' && key === 'required' && raw.required !== true) {
      // false is Codex's default: nothing is lost.
    } else {
      notes.push(makeNote('field-dropped', at(field)));
    }
  }
  return { entry: out, notes };
}

/** Keys taken into the entry (or deliberately not noted) for this transport. */
function handled(client: ImportClient, key: string, transport: 'stdio' | 'http' | 'sse', urlField: string | undefined, raw: Json): boolean {
  if (key === 'type' || key === 'disabled' || key === 'enabled') return true;
  if (transport === 'stdio') {
    if (['command', 'args', 'env', 'cwd'].includes(key)) return true;
    if (client === 'codex' && key === 'env_vars') return true;
    if (client === 'cursor' && key === 'envFile') return true;
    return key === 'url' && client !== 'gemini'; // noted above
  }
  if (key === urlField) return true;
  if (client === 'codex') return ['http_headers', 'env_http_headers', 'bearer_token_env_var', 'bearer_token'].includes(key);
  if (key === 'headers') return true;
  return client === 'claude' && key === 'oauth' && isRecord(raw.oauth);
}

/** Shell-style references of Claude Code and Gemini CLI, as `${env:NAME}`; one note per reference. */
function convertVariables(client: ImportClient, value: string, field: string, where: { file: string; server: string; field: string }, notes: ImportNote[]): string {
  if (client === 'cursor' || client === 'codex' || !value.includes('$')) return value; // Cursor already writes ${env:NAME}; Codex has no interpolation
  const pattern = client === 'gemini' ? BRACED_OR_BARE : BRACED;
  return value.replace(pattern, (whole, braced: string | undefined, fallback: string | undefined, bare: string | undefined) => {
    const name = braced ?? bare!;
    const to = `\${env:${name}}`;
    notes.push(makeNote('env-reference', where, { from: whole.replace(/:-[^}]*\}$/, ':-…}'), to, field }));
    if (fallback !== undefined) notes.push(makeNote('env-default-dropped', where, { from: `\${${name}:-…}`, to, name, field }));
    return to;
  });
}

type SecretFn = (key: string, field: string, value: string | undefined) => string;

function headerWithoutSecret(value: string, name: string, field: string, secret: SecretFn): string {
  if (!(isCredentialName(name) || /^(authorization|cookie|x-api-key|api-key|private-token)$/i.test(name) || looksLikeCredentialValue(value))) return value;
  const scheme = SCHEME.exec(value);
  const [prefix, credential] = scheme ? [`${scheme[1]}${scheme[2]}`, scheme[3]] : ['', value];
  if (credential.includes('${') || credential.trim() === '') return value;
  return prefix + secret(name, field, PLACEHOLDER.test(credential.trim()) ? undefined : credential);
}

/** Each span of `text` replaced by the reference to an input that takes its value (a placeholder: an input without one). */
function withoutSpans(text: string, spans: readonly CredentialSpan[], field: string, secret: SecretFn): string {
  let out = '';
  let from = 0;
  for (const span of [...spans].sort((a, b) => a.start - b.start)) {
    if (span.start < from) continue;
    const value = text.slice(span.start, span.end);
    out += text.slice(from, span.start) + secret(span.name, field, PLACEHOLDER.test(value.trim()) ? undefined : value);
    from = span.end;
  }
  return out + text.slice(from);
}

/**
 * Credential-named query parameters (`?api_key=...`) become inputs; a user and password in the
 * authority are taken out of the URL and handed back as the value of a Basic Authorization
 * header (base64 of `user:password`, as an HTTP client sends them; undefined for a placeholder).
 */
function urlWithoutSecrets(url: string, field: string, secret: SecretFn): { url: string; basic?: { value: string | undefined } } {
  let basic: { value: string | undefined } | undefined;
  let out = url;
  const authority = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)/i.exec(url);
  const at = authority ? authority[2].lastIndexOf('@') : -1;
  if (authority && at >= 0) {
    const userinfo = authority[2].slice(0, at);
    if (!userinfo.includes('${')) {
      const colon = userinfo.indexOf(':');
      const [user, password] = colon < 0 ? [userinfo, ''] : [userinfo.slice(0, colon), userinfo.slice(colon + 1)];
      const decode = (s: string) => {
        try {
          return decodeURIComponent(s);
        } catch {
          return s;
        }
      };
      const placeholder = PLACEHOLDER.test(password.trim()) || (password === '' && PLACEHOLDER.test(user.trim()));
      basic = { value: placeholder ? undefined : Buffer.from(`${decode(user)}:${decode(password)}`, 'utf8').toString('base64') };
      out = authority[1] + authority[2].slice(at + 1) + url.slice(authority[0].length);
    }
  }
  out = out.replace(/([?&])([^=&#]+)=([^&#]*)/g, (whole, sep: string, name: string, value: string) => {
    if (!isQueryCredentialName(name) || value === '' || value.includes('${')) return whole;
    return `${sep}${name}=${secret(name, field, PLACEHOLDER.test(value) ? undefined : value)}`;
  });
  return basic ? { url: out, basic } : { url: out };
}
