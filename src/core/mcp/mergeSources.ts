/**
 * One folder's servers from every file VS Code runs them from (see ./sources): each file is
 * analyzed on its own (its Problems in that file), then merged here in VS Code's order. Pure.
 */
import { canonicalJson, withPin } from '../json/canonicalJson';
import { makeProblem, type Problem } from '../problems/problems';
import type { DeclaredInput, DeclaredServer, RejectedServer } from '../declaration/declarationModel';
import { emptyAnalysis, type Analysis, type SourcePin } from './analyze';
import type { InputDefinition } from './mcpModel';
import { SOURCE_ORDER, type SourceSpec } from './sources';

/** One file as read: its analysis, or `missing` when it does not exist. */
export type SourceRead = { spec: SourceSpec; missing: true } | { spec: SourceSpec; missing?: false; analysis: Analysis };

/**
 * Merges the analyses of a folder's files. The first existing file in VS Code's order is the
 * declaration's `source`; every other file read is pinned in `sources` (null when absent). A name
 * (or DSH name) defined in two files is exported from the file VS Code lists first; the other
 * definition gets a located `shadowed-server`. One unusable file makes the whole export unusable:
 * what it would add or shadow is unknown. `missingPrimary` is the problem shown when no file exists.
 */
export function mergeSources(reads: readonly SourceRead[], missingPrimary: Problem): Analysis {
  const ordered = [...reads].sort((a, b) => SOURCE_ORDER[a.spec.dialect] - SOURCE_ORDER[b.spec.dialect]);
  const present = ordered.filter((r): r is Extract<SourceRead, { analysis: Analysis }> => !r.missing);
  if (present.length === 0) {
    return { ...emptyAnalysis([missingPrimary], '', missingPrimary.file), sources: pinsOf(ordered, missingPrimary.file) };
  }
  const main = present[0].analysis;
  if (present.length === 1 && ordered.length === 1) return main;

  const problems: Problem[] = [];
  const servers: DeclaredServer[] = [];
  const rejected: RejectedServer[] = [];
  const inputs: DeclaredInput[] = [];
  const inputDefinitions: Record<string, InputDefinition> = {};
  const inputFrom = new Map<string, { file: string; definition: string }>();
  const byName = new Map<string, string>();
  const byServerName = new Map<string, string>();
  const keyOfServerName = new Map<string, { file: string; range: Problem['range'] }>();
  const serverKeys: NonNullable<Analysis['serverKeys']> = {};
  for (const { analysis } of present) {
    const file = analysis.sourcePath;
    problems.push(...analysis.problems);
    rejected.push(...analysis.rejected);
    for (const server of analysis.servers) {
      const key = analysis.serverKeys?.[server.name];
      const at = key?.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
      const winner = byName.get(server.name) ?? byServerName.get(server.serverName);
      if (winner !== undefined) {
        const winnerKey = serverKeys[server.name] ?? keyOfServerName.get(server.serverName);
        problems.push(makeProblem('shadowed-server', file, at, {
          name: server.name, file: winner,
        }, { server: server.name, related: winnerKey ? [{ file: winnerKey.file, range: winnerKey.range, message: 'the definition that is exported' }] : undefined }));
        rejected.push({ name: server.name, codes: ['shadowed-server'] });
        continue;
      }
      // One input id, one value: a second file may not define it differently.
      const conflict = server.inputRefs.find((id) => {
        const seen = inputFrom.get(id);
        return seen !== undefined && seen.file !== file && seen.definition !== canonicalJson(analysis.inputDefinitions[id] ?? null);
      });
      if (conflict !== undefined) {
        problems.push(makeProblem('invalid-input', file, at, { reason: `input "${conflict}" is defined differently in ${inputFrom.get(conflict)!.file}; one id holds one value` }, { server: server.name }));
        rejected.push({ name: server.name, codes: ['invalid-input'] });
        continue;
      }
      for (const id of server.inputRefs) {
        if (inputFrom.has(id)) continue;
        inputFrom.set(id, { file, definition: canonicalJson(analysis.inputDefinitions[id] ?? null) });
        // The definition the user is prompted with is the one of the file whose server uses it,
        // not a same-id definition of an earlier file no exported server uses (its "password" may differ).
        if (Object.hasOwn(analysis.inputDefinitions, id)) Object.defineProperty(inputDefinitions, id, { value: analysis.inputDefinitions[id], enumerable: true, configurable: true });
        const declared = analysis.inputs.find((i) => i.id === id);
        if (declared) inputs.push(declared);
      }
      byName.set(server.name, file);
      byServerName.set(server.serverName, file);
      if (key) {
        serverKeys[server.name] = key;
        keyOfServerName.set(server.serverName, key);
      }
      if (file === main.sourcePath) {
        servers.push(server);
      } else {
        const { pin: _pin, ...entry } = server;
        servers.push(withPin({ ...entry, source: file }) as DeclaredServer);
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
    usable: present.every((r) => r.analysis.usable),
    problems, servers, rejected, inputs, inputDefinitions, serverKeys,
    sources: pinsOf(ordered, main.sourcePath),
  };
}

function pinsOf(ordered: readonly SourceRead[], mainPath: string): SourcePin[] {
  return ordered.filter((r) => r.spec.path !== mainPath).map((r) => ({ path: r.spec.path, sha256: r.missing ? null : r.analysis.sourceSha256 || null }));
}
