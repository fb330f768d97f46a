import { propertyValue, type Node } from '../json/jsonTree';
import { templateWithPlaceholders, type Template } from '../declaration/template';
import {
  connectionStringPasswords, findArgCredentials, hasLiteralCredential, inputsInUrlAuthority, isCredentialName, isQueryCredentialName, isLoopbackHost, literalText,
  looksLikeCredentialValue,
} from './securityLint';
import type { Field } from './fieldTemplates';
import type { EntryReading } from './entryReading';
import type { InputInfo } from './inputs';

const PLACEHOLDER = 'placeholder';

/** A remote server's URL: parses, http(s), no user credentials, no plain http to another host, no literal secret in the query. */
export function checkUrl(entry: EntryReading, url: Template, node: Node) {
  let parsed: URL;
  try {
    parsed = new URL(templateWithPlaceholders(url, PLACEHOLDER));
  } catch {
    entry.problem('invalid-url', node, { reason: 'it does not parse as a URL' });
    return;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    entry.problem('invalid-url', node, { reason: 'the scheme must be http or https' });
    return;
  }
  if (parsed.username || parsed.password) entry.problem('url-credentials', node);
  if (parsed.protocol === 'http:' && !parsed.hostname.includes(PLACEHOLDER) && !isLoopbackHost(parsed.hostname)) entry.problem('insecure-url', node);
  if (typeof url !== 'string') for (const id of inputsInUrlAuthority(url)) if (entry.context.inputs.has(id)) entry.problem('input-controls-url-host', node, { id });
  if (parsed.search === '') return; // no query: no URLSearchParams to make
  for (const [key] of parsed.searchParams) {
    const literal = typeof url === 'string' || !parsed.searchParams.get(key)!.includes(PLACEHOLDER);
    if (isQueryCredentialName(key) && literal && parsed.searchParams.get(key) !== '') {
      entry.problem('literal-secret', node, { field: `URL query parameter "${key}"` });
      break;
    }
  }
}

/** Credentials in an entry's fields: literal secrets, secret inputs passed as arguments, credential inputs not masked. */
export function lintSecrets(entry: EntryReading) {
  const { fields } = entry;
  const { inputs } = entry.context;
  let credentialInputs: Set<string> | undefined;
  const args = fields.filter((f) => f.kind === 'arg');
  if (args.length) {
    // On the text as written: a part that is a reference (`${input:x}`) is a name, not a secret.
    for (const c of findArgCredentials(args.map((a) => a.node.value as string))) flag(entry, args[c.index], 'This argument');
    for (let i = 1; i < args.length; i++) {
      if (args[i].refs.inputs.length === 0) continue;
      const prev = literalText(args[i - 1].template);
      if (prev.startsWith('-') && isCredentialName(prev)) for (const id of args[i].refs.inputs) (credentialInputs ??= new Set()).add(id);
    }
  }
  for (const f of fields) {
    const named = (f.kind === 'env' || f.kind === 'header') && f.key !== undefined && isCredentialName(f.key);
    if (named && hasLiteralCredential(f.template)) flag(entry, f, `${f.kind === 'env' ? 'env' : 'Header'} "${f.key}"`);
    if (looksLikeCredentialValue(literalText(f.template))) flag(entry, f, f.key ? `"${f.key}"` : 'This value');
    // postgresql://app:PASSWORD@host/app: the password is literal even when the name is DATABASE_URL.
    if (f.kind === 'env' && typeof f.node.value === 'string' && connectionStringPasswords(f.node.value).length) flag(entry, f, `env "${f.key}"`);
    if (named) for (const id of f.refs.inputs) (credentialInputs ??= new Set()).add(id);
  }
  for (const a of args) {
    for (const id of a.refs.inputs) {
      const info = inputs.get(id);
      if (info && (info.password || isCredentialName(id))) entry.problem('secret-in-args', a.node, { id });
    }
  }
  for (const f of fields) {
    for (const id of f.refs.inputs) {
      const info = inputs.get(id);
      if (!info || info.password || info.type !== 'promptString') continue;
      if (credentialInputs?.has(id) || isCredentialName(id)) reportUnmasked(entry, info);
    }
  }
}

/** One literal-secret report per value. */
function flag(entry: EntryReading, f: Field, field: string) {
  if (f.flagged) return;
  f.flagged = true;
  entry.problem('literal-secret', f.node, { field });
}

/** One report per input of the file, at its id, not tied to the server that uses it. */
function reportUnmasked(entry: EntryReading, info: InputInfo) {
  const { report, unmaskedReported } = entry.context;
  if (unmaskedReported.has(info.id)) return;
  unmaskedReported.add(info.id);
  report.add('unmasked-secret-input', report.range(propertyValue(info.node, 'id') ?? info.node), { id: info.id });
}
