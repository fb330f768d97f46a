/**
 * Language servers for DSH from the editor's `dsh.lsp.servers` setting (contract section 4).
 *
 * The setting maps a provider id to `{command, args, env, extensions, initializationOptions,
 * configuration, maxMessageBytes, maxStderrBytes, maxDocumentBytes, shutdownTimeoutMs, killGraceMs}`.
 * DSH runs them all from ONE `@deepseek-ai/dsh-lsp-stdio` row whose `config.servers` holds the same
 * entries with `extensions` renamed `extensionToLanguage`. This module validates the setting exactly
 * as that row and `dsh-lsp`'s `registerProvider` do (checked against both packages by
 * `test/unit/lsp.oracle.test.ts`), normalizes it into the row's `servers` map, and places its
 * problems on the JSON node of whichever settings file defines the entry.
 *
 * Pure apart from the injected command resolver; no editor, no DSH runtime.
 */
import * as path from 'node:path';
import { parseJsonc, properties, propertyValue, type Node } from '../json/jsonTree';
import { formatMessage, type Problem, type Severity } from '../problems/problems';
import type { JsonPath, JsonTarget, SettingProblem } from '../settings/settingsFile';
import { LineIndex, type Range } from '../json/text';
import { isRecord } from '../json/jsonValue';

/** The setting id as written at the top level of settings.json (or under `settings` in a .code-workspace). */
export const LSP_SETTING = 'dsh.lsp.servers';
/** The DSH plugin that runs every configured server; one row, `config.servers`. */
export const LSP_STDIO_PLUGIN = '@deepseek-ai/dsh-lsp-stdio';
/** Row id the bridge gives that one row. */
export const LSP_STDIO_ROW_ID = 'lsp-stdio';
/** Largest delay Node schedules as written (2^31 - 1 ms); DSH refuses larger timers. */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;
/** dsh-lsp's well-formed normalized extension: a dot and one segment without `.`, `/` or `\`. */
export const LSP_EXTENSION_PATTERN = /^\.[^./\\]+$/;

export const LSP_DEFAULT_LIMITS = {
  maxMessageBytes: 16_000_000,
  maxStderrBytes: 1_000_000,
  maxDocumentBytes: 4_000_000,
  shutdownTimeoutMs: 5_000,
  killGraceMs: 2_000,
} as const;

type LimitKey = keyof typeof LSP_DEFAULT_LIMITS;
const TIMER_KEYS: ReadonlySet<LimitKey> = new Set<LimitKey>(['shutdownTimeoutMs', 'killGraceMs']);
/** Checked in DSH's own order (`validateServerConfig`): timers first, then byte limits. */
const LIMIT_KEYS: readonly LimitKey[] = ['shutdownTimeoutMs', 'killGraceMs', 'maxStderrBytes', 'maxMessageBytes', 'maxDocumentBytes'];
const KNOWN_KEYS: ReadonlySet<string> = new Set([
  'command', 'args', 'env', 'extensions', 'initializationOptions', 'configuration', ...LIMIT_KEYS,
]);

/**
 * Codes, severities and English templates (stable l10n keys; `{name}` filled from `args`).
 * Messages never quote a command, argument or environment value.
 */
export const LSP_PROBLEM_CODES = {
  'lsp-invalid-settings': ['error', '"dsh.lsp.servers" must be an object that maps language server ids to their definitions.'],
  'lsp-invalid-provider-id': ['error', 'A language server id must not be blank.'],
  'lsp-invalid-server': ['error', 'Language server "{server}" must be an object.'],
  'lsp-invalid-type': ['error', '"{key}" of language server "{server}" must be {expected}.'],
  'lsp-missing-command': ['error', 'Language server "{server}" has no command.'],
  'lsp-relative-command': ['error', 'The command of language server "{server}" is a relative path; DSH accepts an absolute path or a bare name found on PATH.'],
  'lsp-command-not-found': ['error', 'The command of language server "{server}" is not an absolute path to an executable and is not found on PATH.'],
  'lsp-missing-extensions': ['error', 'Language server "{server}" maps no file extensions: "extensions" must map at least one extension to a language id.'],
  'lsp-invalid-extension': ['error', 'Extension "{extension}" of language server "{server}" is invalid: DSH routes by the final extension of a file name only, a dot and one segment (".ts", not ".d.ts").'],
  'lsp-blank-language-id': ['error', 'Extension "{extension}" of language server "{server}" maps to a blank language id.'],
  'lsp-extension-conflict': ['error', 'Extension "{extension}" is claimed twice: by "{key}" of language server "{server}" and by "{otherKey}" of language server "{otherServer}".'],
  'lsp-limit-out-of-range': ['error', '"{key}" of language server "{server}" must be an integer from 1 to {max}.'],
  'lsp-limit-not-positive': ['error', '"{key}" of language server "{server}" must be a positive integer.'],
  'lsp-unknown-key': ['warning', '"{key}" is not an option of a DSH language server and is ignored.'],
  'lsp-none-registered': ['error', 'DSH registers none of these {count} language servers while any of them is invalid (invalid: {invalid}).'],
} as const satisfies Record<string, readonly [Severity, string]>;

export type LspProblemCode = keyof typeof LSP_PROBLEM_CODES;

/** A problem in the setting value, located by JSON path; `placeSettingProblems` turns it into a {@link Problem}. */
export type LspSettingProblem = SettingProblem<LspProblemCode>;

/** One entry of the dsh-lsp-stdio row's `config.servers`, every default filled in. */
export interface LspServerConfig {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Keys normalized: lowercase with a leading dot. */
  extensionToLanguage: Record<string, string>;
  initializationOptions: unknown;
  configuration: unknown;
  maxMessageBytes: number;
  maxStderrBytes: number;
  maxDocumentBytes: number;
  shutdownTimeoutMs: number;
  killGraceMs: number;
}

/**
 * What dsh-lsp's `registerProvider` answers for one server when the servers are registered one by
 * one in settings order (a failed registration publishes nothing; later ones still try).
 */
export type LspRegistryOutcome = 'accepted' | 'LSP_INVALID_PROVIDER' | 'LSP_CONFLICT';

/** Resolves a bare command on PATH (or verifies an absolute one); `undefined` when not found. */
export type CommandResolver = (command: string, env: Readonly<Record<string, string>>) => string | undefined | Promise<string | undefined>;

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

function problem(
  code: LspProblemCode,
  path: JsonPath,
  target: JsonTarget,
  args: Record<string, string | number>,
  server?: string,
  related?: LspSettingProblem['related'],
): LspSettingProblem {
  const [severity, template] = LSP_PROBLEM_CODES[code];
  const out: LspSettingProblem = { code, severity, message: formatMessage(template, args), args, path, target };
  if (server !== undefined) out.server = server;
  if (related?.length) out.related = related;
  return out;
}

/** Sets an own property even for a key like `__proto__` (provider ids and extensions come from user JSON). */
function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}


/** Absent for DSH's schema (schemastery): `undefined` and `null` both take the default. */
function isAbsent(value: unknown): value is null | undefined {
  return value === undefined || value === null;
}

/** dsh-lsp's key normalization: lowercase, then a leading dot if there is none. */
export function normalizeLspExtension(extension: string): string {
  const lower = extension.toLowerCase();
  return lower.startsWith('.') ? lower : `.${lower}`;
}

/**
 * DSH's routing key of a file: the final extension of the basename, lowercased, with its dot
 * (`foo.d.ts` -> `.ts`, `archive.tar.GZ` -> `.gz`); `''` for no extension or a dotfile
 * (`Makefile`, `.bashrc`). Both `/` and `\` separate path segments.
 */
export function finalExtension(fileName: string): string {
  const lastSlash = Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\'));
  const base = lastSlash >= 0 ? fileName.slice(lastSlash + 1) : fileName;
  const dot = base.lastIndexOf('.');
  if (dot <= 0) return '';
  return base.slice(dot).toLowerCase();
}

export interface LspRoute {
  providerId: string;
  languageId: string;
  /** The routing key that matched, e.g. `.ts`. */
  extension: string;
}

/** Which server DSH sends a file to, by {@link finalExtension}; `undefined` when none claims it. */
export function lspServerFor(fileName: string, servers: Readonly<Record<string, Pick<LspServerConfig, 'extensionToLanguage'>>>): LspRoute | undefined {
  const extension = finalExtension(fileName);
  if (extension === '') return undefined;
  for (const [providerId, server] of Object.entries(servers)) {
    for (const [raw, languageId] of Object.entries(server.extensionToLanguage)) {
      if (normalizeLspExtension(raw) === extension) return { providerId, languageId, extension };
    }
  }
  return undefined;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function isStringMap(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every((item) => typeof item === 'string');
}

/** An extension entry that survived its own checks, remembered for conflict detection. */
interface Claim {
  server: string;
  key: string;
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

  const claims = new Map<string, Claim>(); // every valid extension entry, first claimant kept
  const registered = new Map<string, string>(); // extensions published by an accepted registration
  const invalid: string[] = [];
  for (const [id, raw] of Object.entries(value)) {
    const at: JsonPath = [LSP_SETTING, id];
    const before = result.problems.length;
    const push = (p: LspSettingProblem): void => void result.problems.push(p);
    const typeError = (key: string, expected: string, where: JsonPath = [...at, key]): void =>
      push(problem('lsp-invalid-type', where, 'value', { server: id, key, expected }, id));

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

    // command
    const command = raw.command;
    if (isAbsent(command)) push(problem('lsp-missing-command', at, 'key', { server: id }, id));
    else if (typeof command !== 'string') typeError('command', 'a string');
    else if (command.trim() === '') push(problem('lsp-missing-command', [...at, 'command'], 'value', { server: id }, id));

    // args, env
    const args = isAbsent(raw.args) ? [] : raw.args;
    if (!isStringArray(args)) typeError('args', 'an array of strings');
    const env = isAbsent(raw.env) ? {} : raw.env;
    if (!isStringMap(env)) typeError('env', 'an object of string values');

    // limits
    const limits = { ...LSP_DEFAULT_LIMITS } as Record<LimitKey, number>;
    for (const key of LIMIT_KEYS) {
      const limit = raw[key];
      if (isAbsent(limit)) continue;
      const timer = TIMER_KEYS.has(key);
      if (typeof limit !== 'number') typeError(key, 'a number');
      else if (!Number.isInteger(limit) || limit < 1 || (timer && limit > MAX_TIMER_DELAY_MS)) {
        push(timer
          ? problem('lsp-limit-out-of-range', [...at, key], 'value', { server: id, key, max: MAX_TIMER_DELAY_MS }, id)
          : problem('lsp-limit-not-positive', [...at, key], 'value', { server: id, key }, id));
      } else limits[key] = limit;
    }

    // extensions: registerProvider's checks, in its order, then the cross-server conflict.
    let registry: LspRegistryOutcome = id.trim() === '' ? 'LSP_INVALID_PROVIDER' : 'accepted';
    const extensions = raw.extensions;
    const normalized: Record<string, string> = {};
    if (isAbsent(extensions) || (isRecord(extensions) && Object.keys(extensions).length === 0)) {
      push(problem('lsp-missing-extensions', isAbsent(extensions) ? at : [...at, 'extensions'], isAbsent(extensions) ? 'key' : 'value', { server: id }, id));
      registry = 'LSP_INVALID_PROVIDER';
    } else if (!isRecord(extensions)) {
      typeError('extensions', 'an object that maps extensions to language ids');
      registry = 'LSP_INVALID_PROVIDER';
    } else {
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
          typeError(`extensions.${key}`, 'a language id string', keyPath);
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
        const other = claims.get(ext);
        if (other === undefined) {
          claims.set(ext, { server: id, key });
          continue;
        }
        push(problem('lsp-extension-conflict', [...at, 'extensions', key], 'key',
          { extension: ext, server: id, key, otherServer: other.server, otherKey: other.key }, id,
          [{ path: [LSP_SETTING, other.server, 'extensions', other.key], target: 'key', message: `"${other.key}" of "${other.server}"` }]));
      }
      if (registry === 'accepted' && [...own.keys()].some((ext) => registered.has(ext))) registry = 'LSP_CONFLICT';
      if (registry === 'accepted') for (const ext of own.keys()) registered.set(ext, id);
    }
    setOwn(result.registry, id, registry);

    // command resolution last, as in DSH (after the schema and the limits).
    if (typeof command === 'string' && command.trim() !== '') {
      if (!path.isAbsolute(command) && /[/\\]/.test(command)) {
        push(problem('lsp-relative-command', [...at, 'command'], 'value', { server: id, command }, id));
      } else if (options.resolveCommand && isStringMap(env)) {
        const resolved = await options.resolveCommand(command, env);
        if (resolved === undefined) push(problem('lsp-command-not-found', [...at, 'command'], 'value', { server: id, command }, id));
      }
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

/** The profile row DSH loads: `- insert: [ <this> ]`. */
export function lspStdioRow(servers: Readonly<Record<string, LspServerConfig>>): { id: string; name: string; config: { servers: Record<string, LspServerConfig> } } {
  return { id: LSP_STDIO_ROW_ID, name: LSP_STDIO_PLUGIN, config: { servers: { ...servers } } };
}

// ---------------------------------------------------------------------------------------------
// Command resolution on this machine (the injected resolver's default).

