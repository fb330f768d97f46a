// The source fixtures (test/fixtures/sources) and the folders the sources tests lay out with them.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { analyzeSource } from '../../../../src/core/mcp/analyze';
import type { SourceSpec } from '../../../../src/core/mcp/sources';
import { options, tempDir } from '../../helpers';

export const ROOT = path.resolve(__dirname, '../../../..');
export const FIXTURES = path.join(ROOT, 'test/fixtures/sources');
export const CLI = path.join(ROOT, 'dist/cli.js');
export const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');

export function analyzeAs(text: string, source: SourceSpec) {
  return analyzeSource(Buffer.from(text, 'utf8'), options(), source);
}

/** A workspace (`<dir>/app`) with the fixture files under their real names; returns the folder and the workspace file. */
export function multiRoot(files: Partial<Record<'vscode' | 'dotMcp' | 'devcontainer' | 'codeWorkspace', string>>) {
  const dir = tempDir('dsh-bridge-sources-');
  const folder = path.join(dir, 'app');
  const put = (rel: string, text: string | undefined) => {
    if (text === undefined) return;
    mkdirSync(path.dirname(path.join(folder, rel)), { recursive: true });
    writeFileSync(path.join(folder, rel), text);
  };
  mkdirSync(folder, { recursive: true });
  put('.vscode/mcp.json', files.vscode);
  put('.mcp.json', files.dotMcp);
  put('.devcontainer/devcontainer.json', files.devcontainer);
  const codeWorkspace = path.join(dir, 'multi.code-workspace');
  if (files.codeWorkspace !== undefined) writeFileSync(codeWorkspace, files.codeWorkspace);
  return { folder, codeWorkspace };
}

export { runCli as cli } from '../../helpers';
