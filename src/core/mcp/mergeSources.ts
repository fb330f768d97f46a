/**
 * One folder's servers from every file VS Code runs them from (see ./sources): each file is
 * analyzed on its own (its Problems in that file), then merged here in VS Code's order. Pure.
 */
import { canonicalJson, withPin } from '../json/canonicalJson';
import { makeProblem, type Problem } from '../problems/problems';
import type { DeclaredInput, DeclaredServer, RejectedServer } from '../declaration/declarationModel';
import { emptyAnalysis, type Analysis, type ServerEntryKey, type SourcePin } from './analysis';
import type { InputDefinition } from './mcpModel';
import { sourceOrder, type CollisionBehavior, type SourceSpec } from './sources';
import { EMPTY_RANGE } from '../json/text';

/** One file as read: its analysis, or `missing` when it does not exist. */
export type SourceRead = { spec: SourceSpec; missing: true } | { spec: SourceSpec; missing?: false; analysis: Analysis };

/**
 * Merges the analyses of a folder's files. The first existing file in VS Code's order is the
 * declaration's `source`; every other file read is pinned in `sources` (null when absent).
 *
 * A name belongs to its first server entry in VS Code's order (files by collection order, then
 * each file's map order; names compared case-insensitively, as VS Code compares them), whether
 * the bridge can export that entry or not: every later entry of the name is not exported and gets
 * a located problem linked to the owner, `shadowed-server` (VS Code disables it too, its default
 * `chat.mcp.collisionBehavior` "disable") or `duplicate-server` ("suffix": VS Code runs both, DSH
 * runs one server per name). Two exported servers that get one DSH name are told apart the same
 * way. One unusable file makes the whole export unusable: what it would add or shadow is unknown.
 * `missingPrimary` is the problem shown when no file exists.
 */
export function mergeSources(reads: readonly SourceRead[], missingPrimary: Problem, options: { collisionBehavior?: CollisionBehavior } = {}): Analysis {
  const ordered = [...reads].sort((a, b) => sourceOrder(a.spec) - sourceOrder(b.spec));
  const present = ordered.filter((r): r is Extract<SourceRead, { analysis: Analysis }> => !r.missing);
  if (present.length === 0) {
    return { ...emptyAnalysis([missingPrimary], '', missingPrimary.file), sources: pinsOf(ordered, missingPrimary.file) };
  }
  const main = present[0].analysis;
  const shadowCode = options.collisionBehavior === 'suffix' ? 'duplicate-server' : 'shadowed-server';

  // Each name's owner: the first entry of it, exported or refused.
  const owners = new Map<string, ServerEntryKey>();
  /** A later entry (by file and name) -> the entry that owns its name. */
  const ownedBy = new Map<string, ServerEntryKey>();
  const entryId = (file: string, name: string) => JSON.stringify([file, name]);
  for (const { analysis } of present) {
    for (const entry of entriesOf(analysis)) {
      const label = entry.name.toLowerCase();
      const owner = owners.get(label);
      if (owner) ownedBy.set(entryId(entry.file, entry.name), owner);
      else owners.set(label, entry);
    }
  }
  const shadowed = (entry: ServerEntryKey, owner: ServerEntryKey) => makeProblem(shadowCode, entry.file, entry.range, { name: entry.name, file: owner.file }, {
    server: entry.name, related: [{ file: owner.file, range: owner.range, message: 'the definition VS Code takes this name from' }],
  });

  const problems: Problem[] = [];
  const servers: DeclaredServer[] = [];
  const rejected: RejectedServer[] = [];
  const inputs: DeclaredInput[] = [];
  const inputDefinitions: Record<string, InputDefinition> = {};
  const inputFrom = new Map<string, { file: string; definition: string }>();
  const byServerName = new Map<string, ServerEntryKey>();
  const serverKeys: NonNullable<Analysis['serverKeys']> = {};
  for (const { analysis } of present) {
    const file = analysis.sourcePath;
    problems.push(...analysis.problems);
    rejected.push(...analysis.rejected);
    // A refused entry whose name another entry owns: not what VS Code runs either.
    for (const r of analysis.rejected) {
      const owner = r.codes.includes('shadowed-server') ? undefined : ownedBy.get(entryId(file, r.name));
      const entry = owner && entriesOf(analysis).find((e) => e.name === r.name);
      if (owner && entry) problems.push(shadowed(entry, owner));
    }
    for (const server of analysis.servers) {
      const key = Object.hasOwn(analysis.serverKeys ?? {}, server.name) ? analysis.serverKeys![server.name] : undefined;
      const entry = key ? { name: server.name, ...key } : { name: server.name, file, range: EMPTY_RANGE };
      const owner = ownedBy.get(entryId(file, server.name)) ?? byServerName.get(server.serverName);
      if (owner !== undefined) {
        problems.push(shadowed(entry, owner));
        rejected.push({ name: server.name, codes: [shadowCode] });
        continue;
      }
      // One input id, one value: a second file may not define it differently.
      const definitionOf = (id: string) => canonicalJson(Object.hasOwn(analysis.inputDefinitions, id) ? analysis.inputDefinitions[id] : null);
      const conflict = server.inputRefs.find((id) => {
        const seen = inputFrom.get(id);
        return seen !== undefined && seen.file !== file && seen.definition !== definitionOf(id);
      });
      if (conflict !== undefined) {
        problems.push(makeProblem('invalid-input', file, entry.range, { reason: `input "${conflict}" is defined differently in ${inputFrom.get(conflict)!.file}; one id holds one value` }, { server: server.name }));
        rejected.push({ name: server.name, codes: ['invalid-input'] });
        continue;
      }
      for (const id of server.inputRefs) {
        if (inputFrom.has(id)) continue;
        inputFrom.set(id, { file, definition: definitionOf(id) });
        // The definition the user is prompted with is the one of the file whose server uses it,
        // not a same-id definition of an earlier file no exported server uses (its "password" may differ).
        if (Object.hasOwn(analysis.inputDefinitions, id)) Object.defineProperty(inputDefinitions, id, { value: analysis.inputDefinitions[id], enumerable: true, configurable: true });
        const declared = analysis.inputs.find((i) => i.id === id);
        if (declared) inputs.push(declared);
      }
      byServerName.set(server.serverName, entry);
      if (key) Object.defineProperty(serverKeys, server.name, { value: key, enumerable: true, configurable: true, writable: true });
      if (file === main.sourcePath) {
        servers.push(server);
      } else {
        const { pin: _pin, ...rest } = server;
        servers.push(withPin({ ...rest, source: file }) as DeclaredServer);
      }
    }
  }
  // Ids no exported server uses: the first file's definition.
  for (const { analysis } of present) {
    for (const [id, definition] of Object.entries(analysis.inputDefinitions)) {
      if (!Object.hasOwn(inputDefinitions, id)) Object.defineProperty(inputDefinitions, id, { value: definition, enumerable: true });
    }
  }
  problems.sort((a, b) => (a.file === b.file ? 0 : a.file < b.file ? -1 : 1) || a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
  return {
    sourcePath: main.sourcePath,
    sourceSha256: main.sourceSha256,
    ...(main.sourceContent !== undefined ? { sourceContent: main.sourceContent } : {}),
    usable: present.every((r) => r.analysis.usable),
    problems, servers, rejected, inputs, inputDefinitions, serverKeys,
    sources: pinsOf(ordered, main.sourcePath),
  };
}

/** A file's server entries in VS Code's order; an analysis made without them lists its exported servers. */
function entriesOf(analysis: Analysis): ReadonlyArray<ServerEntryKey> {
  if (analysis.entries) return analysis.entries;
  const keys = analysis.serverKeys ?? {};
  return analysis.servers.map((s) => ({ name: s.name, file: analysis.sourcePath, range: Object.hasOwn(keys, s.name) ? keys[s.name].range : EMPTY_RANGE }));
}

function pinsOf(ordered: readonly SourceRead[], mainPath: string): SourcePin[] {
  return ordered.filter((r) => r.spec.path !== mainPath).map((r) => ({
    path: r.spec.path, sha256: r.missing ? null : r.analysis.sourceSha256 || null,
    ...(!r.missing && r.analysis.sourceContent !== undefined ? { content: r.analysis.sourceContent } : {}),
  }));
}
