/**
 * The `dsh.lsp.servers` setting validated exactly as DSH's dsh-lsp-stdio row and `dsh-lsp`'s
 * `registerProvider` do (checked against both packages by `test/unit/core/lsp/lspValidation.oracle.test.ts`),
 * normalized into the row's `servers` map; its problems are located by JSON path, and placed on
 * whichever settings file defines the entry by `placeSettingProblems`.
 */
import type { JsonPath } from '../settings/settingsFile';
import { isRecord } from '../json/jsonValue';
import { lspProblem as problem, type LspSettingProblem } from './lspCodes';
import { lspCommandProblem, type CommandResolver } from './lspCommand';
import { LSP_DEFAULT_LIMITS, LSP_EXTENSION_PATTERN, LSP_SETTING, MAX_TIMER_DELAY_MS, type LspServerConfig } from './lspModel';
import { normalizeLspExtension } from './lspRouting';

type LimitKey = keyof typeof LSP_DEFAULT_LIMITS;
const TIMER_KEYS: ReadonlySet<LimitKey> = new Set<LimitKey>(['shutdownTimeoutMs', 'killGraceMs']);
/** Checked in DSH's own order (`validateServerConfig`): timers first, then byte limits. */
const LIMIT_KEYS: readonly LimitKey[] = ['shutdownTimeoutMs', 'killGraceMs', 'maxStderrBytes', 'maxMessageBytes', 'maxDocumentBytes'];
const KNOWN_KEYS: ReadonlySet<string> = new Set([
  'command', 'args', 'env', 'extensions', 'initializationOptions', 'configuration', ...LIMIT_KEYS,
]);

/**
 * What dsh-lsp's `registerProvider` answers for one server when the servers are registered one by
 * one in settings order (a failed registration publishes nothing; later ones still try).
 */
export type LspRegistryOutcome = 'accepted' | 'LSP_INVALID_PROVIDER' | 'LSP_CONFLICT';

export interface LspValidation {
  /** Normalized entries of every server without an error, in settings order. */
  servers: Record<string, LspServerConfig>;
  /** True when DSH would load the row and register every server: at least one server and no error. */
  registersAll: boolean;
  /** Per provider id, in settings order: the registry's answer to that server's extension map. */
  registry: Record<string, LspRegistryOutcome>;
  problems: LspSettingProblem[];
}

export interface LspValidateOptions {
  /** Checks each command; without one, commands are not checked. */
  resolveCommand?: CommandResolver;
}

/** An extension entry that survived its own checks, remembered for conflict detection. */
interface Claim {
  server: string;
  key: string;
}

/** What the servers checked so far claim: every valid extension entry (first claimant kept), and the extensions accepted registrations published. */
interface Claims {
  readonly entries: Map<string, Claim>;
  readonly registered: Map<string, string>;
}

/** Reports one server's problems; `typeError` for a value of the wrong type. */
interface ServerProblems {
  readonly id: string;
  readonly at: JsonPath;
  push(p: LspSettingProblem): void;
  typeError(key: string, expected: string, where?: JsonPath): void;
}

/**
 * Validates and normalizes the value of `dsh.lsp.servers` (the merged setting value).
 *
 * Mirrors DSH: the row's schema (types, defaults; `null` = default), `validateServerConfig` (timers
 * 1..2^31-1, byte limits >= 1, integers), command resolution (absolute or bare name on PATH;
 * relative paths refused), and `registerProvider` (non-blank id, at least one extension, each key
 * lowercased with a dot added and matching {@link LSP_EXTENSION_PATTERN}, non-blank language id, no
 * key twice in one server, no extension in two servers). Every problem is reported, not just the
 * first; any error means the row registers nothing, which `lsp-none-registered` says.
 */
export async function validateLspServers(value: unknown, options: LspValidateOptions = {}): Promise<LspValidation> {
  const root: JsonPath = [LSP_SETTING];
  const result: LspValidation = { servers: {}, registersAll: false, registry: {}, problems: [] };
  if (isAbsent(value)) return result;
  if (!isRecord(value)) {
    result.problems.push(problem('lsp-invalid-settings', root, 'value', {}));
    return result;
  }

  const claims: Claims = { entries: new Map(), registered: new Map() };
  const invalid: string[] = [];
  for (const [id, raw] of Object.entries(value)) {
    const at: JsonPath = [LSP_SETTING, id];
    const before = result.problems.length;
    const push = (p: LspSettingProblem): void => void result.problems.push(p);
    const report: ServerProblems = {
      id, at, push,
      typeError: (key, expected, where = [...at, key]) => push(problem('lsp-invalid-type', where, 'value', { server: id, key, expected }, id)),
    };

    if (id.trim() === '') push(problem('lsp-invalid-provider-id', at, 'key', { server: id }, id));
    if (!isRecord(raw)) {
      push(problem('lsp-invalid-server', at, 'value', { server: id }, id));
      setOwn(result.registry, id, 'LSP_INVALID_PROVIDER');
      invalid.push(id);
      continue;
    }
    for (const key of Object.keys(raw)) {
      if (!KNOWN_KEYS.has(key)) push(problem('lsp-unknown-key', [...at, key], 'key', { server: id, key }, id));
    }

    const command = raw.command;
    if (isAbsent(command)) push(problem('lsp-missing-command', at, 'key', { server: id }, id));
    else if (typeof command !== 'string') report.typeError('command', 'a string');
    else if (command.trim() === '') push(problem('lsp-missing-command', [...at, 'command'], 'value', { server: id }, id));

    const args = isAbsent(raw.args) ? [] : raw.args;
    if (!isStringArray(args)) report.typeError('args', 'an array of strings');
    const env = isAbsent(raw.env) ? {} : raw.env;
    if (!isStringMap(env)) report.typeError('env', 'an object of string values');
    const limits = readLimits(raw, report);
    const { registry, normalized } = readExtensions(raw.extensions, report, claims);
    setOwn(result.registry, id, registry);

    // Command resolution last, as in DSH (after the schema and the limits).
    if (typeof command === 'string' && command.trim() !== '') {
      const commandProblem = await lspCommandProblem(command, isStringMap(env) ? env : undefined, at, id, options.resolveCommand);
      if (commandProblem) push(commandProblem);
    }
    if (result.problems.slice(before).some((p) => p.severity === 'error')) {
      invalid.push(id);
      continue;
    }
    setOwn(result.servers, id, {
      command: command as string,
      args: [...(args as string[])],
      env: { ...(env as Record<string, string>) },
      extensionToLanguage: normalized,
      initializationOptions: isAbsent(raw.initializationOptions) ? null : raw.initializationOptions,
      configuration: isAbsent(raw.configuration) ? null : raw.configuration,
      ...limits,
    });
  }
  const count = Object.keys(value).length;
  if (invalid.length > 0) {
    result.problems.push(problem('lsp-none-registered', root, 'key', { count, invalid: invalid.join(', ') }));
  }
  result.registersAll = count > 0 && invalid.length === 0;
  return result;
}

/** The server's limits, defaults filled in; `validateServerConfig`'s checks. */
function readLimits(raw: Record<string, unknown>, report: ServerProblems): Record<LimitKey, number> {
  const { id, at } = report;
  const limits = { ...LSP_DEFAULT_LIMITS } as Record<LimitKey, number>;
  for (const key of LIMIT_KEYS) {
    const limit = raw[key];
    if (isAbsent(limit)) continue;
    const timer = TIMER_KEYS.has(key);
    if (typeof limit !== 'number') report.typeError(key, 'a number');
    else if (!Number.isInteger(limit) || limit < 1 || (timer && limit > MAX_TIMER_DELAY_MS)) {
      report.push(timer
        ? problem('lsp-limit-out-of-range', [...at, key], 'value', { server: id, key, max: MAX_TIMER_DELAY_MS }, id)
        : problem('lsp-limit-not-positive', [...at, key], 'value', { server: id, key }, id));
    } else limits[key] = limit;
  }
  return limits;
}

/**
 * The server's extension map: `registerProvider`'s checks, in its order, then the cross-server
 * conflict with the servers before it; the registry's answer and the normalized map.
 */
function readExtensions(
  extensions: unknown, report: ServerProblems, claims: Claims,
): { registry: LspRegistryOutcome; normalized: Record<string, string> } {
  const { id, at, push } = report;
  let registry: LspRegistryOutcome = id.trim() === '' ? 'LSP_INVALID_PROVIDER' : 'accepted';
  const normalized: Record<string, string> = {};
  if (isAbsent(extensions) || (isRecord(extensions) && Object.keys(extensions).length === 0)) {
    push(problem('lsp-missing-extensions', isAbsent(extensions) ? at : [...at, 'extensions'], isAbsent(extensions) ? 'key' : 'value', { server: id }, id));
    return { registry: 'LSP_INVALID_PROVIDER', normalized };
  }
  if (!isRecord(extensions)) {
    report.typeError('extensions', 'an object that maps extensions to language ids');
    return { registry: 'LSP_INVALID_PROVIDER', normalized };
  }
  const own = new Map<string, string>(); // normalized -> raw key, inside this server
  for (const [key, languageId] of Object.entries(extensions)) {
    const ext = normalizeLspExtension(key);
    const keyPath: JsonPath = [...at, 'extensions', key];
    if (!LSP_EXTENSION_PATTERN.test(ext)) {
      push(problem('lsp-invalid-extension', keyPath, 'key', { server: id, extension: key }, id));
      registry = 'LSP_INVALID_PROVIDER';
      continue;
    }
    if (typeof languageId !== 'string') {
      report.typeError(`extensions.${key}`, 'a language id string', keyPath);
      registry = 'LSP_INVALID_PROVIDER';
      continue;
    }
    if (languageId.trim() === '') {
      push(problem('lsp-blank-language-id', keyPath, 'value', { server: id, extension: ext }, id));
      registry = 'LSP_INVALID_PROVIDER';
      continue;
    }
    const twin = own.get(ext);
    if (twin !== undefined) {
      push(problem('lsp-extension-conflict', keyPath, 'key',
        { extension: ext, server: id, key, otherServer: id, otherKey: twin }, id,
        [{ path: [...at, 'extensions', twin], target: 'key', message: `"${twin}" of "${id}"` }]));
      registry = 'LSP_INVALID_PROVIDER';
      continue;
    }
    own.set(ext, key);
    setOwn(normalized, ext, languageId);
  }
  for (const [ext, key] of own) {
    const other = claims.entries.get(ext);
    if (other === undefined) {
      claims.entries.set(ext, { server: id, key });
      continue;
    }
    push(problem('lsp-extension-conflict', [...at, 'extensions', key], 'key',
      { extension: ext, server: id, key, otherServer: other.server, otherKey: other.key }, id,
      [{ path: [LSP_SETTING, other.server, 'extensions', other.key], target: 'key', message: `"${other.key}" of "${other.server}"` }]));
  }
  if (registry === 'accepted' && [...own.keys()].some((ext) => claims.registered.has(ext))) registry = 'LSP_CONFLICT';
  if (registry === 'accepted') for (const ext of own.keys()) claims.registered.set(ext, id);
  return { registry, normalized };
}

/** Sets an own property even for a key like `__proto__` (provider ids and extensions come from user JSON). */
function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Absent for DSH's schema (schemastery): `undefined` and `null` both take the default. */
function isAbsent(value: unknown): value is null | undefined {
  return value === undefined || value === null;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function isStringMap(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every((item) => typeof item === 'string');
}
