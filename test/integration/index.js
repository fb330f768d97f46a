// Test runner loaded by the VS Code extension host (the `extensionTestsPath` of the real-editor
// harness, test/harness/run-integration.mjs). Contract, as with @vscode/test-electron: export
// run(): Promise<void>; a rejection makes the host report exit code 1.
//
// The harness passes, through the environment of code-server (inherited by the host):
//   DSH_BRIDGE_SUITE_DIR  folder of *.test.js files to run (test/integration/suites/<fixture>);
//                         or, when one code-server serves every suite,
//   DSH_BRIDGE_SUITES_DIR the suites' folder: the suite is the one named after the fixture copy
//                         the window opened (its folder, or the folder of its .code-workspace)
//   DSH_BRIDGE_HOST_MOCHA mocha installed by scripts/setup-real-editor.sh in the cache
// `npm run test:electron` does not use this file: @vscode/test-cli brings its own runner and
// reads the same suites through .vscode-test.mjs.
'use strict';
const fs = require('fs');
const path = require('path');

function loadMocha() {
  if (process.env.DSH_BRIDGE_HOST_MOCHA) return require(process.env.DSH_BRIDGE_HOST_MOCHA);
  return require('mocha');
}

function suiteOfWindow() {
  if (process.env.DSH_BRIDGE_SUITE_DIR) return process.env.DSH_BRIDGE_SUITE_DIR;
  if (!process.env.DSH_BRIDGE_SUITES_DIR) return undefined;
  const vscode = require('vscode');
  const opened = vscode.workspace.workspaceFile && vscode.workspace.workspaceFile.scheme !== 'untitled'
    ? path.dirname(vscode.workspace.workspaceFile.fsPath)
    : (vscode.workspace.workspaceFolders || [])[0] && vscode.workspace.workspaceFolders[0].uri.fsPath;
  return opened ? path.join(process.env.DSH_BRIDGE_SUITES_DIR, path.basename(opened)) : undefined;
}

exports.run = async function run() {
  const suiteDir = suiteOfWindow();
  if (!suiteDir) throw new Error('neither DSH_BRIDGE_SUITE_DIR nor DSH_BRIDGE_SUITES_DIR (with a folder open) is set: run this through test/harness/run-integration.mjs');
  const Mocha = loadMocha();
  const mocha = new Mocha({ ui: 'bdd', reporter: 'spec', color: false, timeout: 300000 });
  if (process.env.DSH_BRIDGE_GREP) mocha.grep(process.env.DSH_BRIDGE_GREP);
  const files = fs.readdirSync(suiteDir).filter((f) => f.endsWith('.test.js')).sort();
  if (files.length === 0) throw new Error(`no *.test.js files in ${suiteDir}`);
  for (const f of files) mocha.addFile(path.join(suiteDir, f));
  await new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      const s = runner.stats || {};
      console.log(`mocha (${path.basename(suiteDir)}): ${s.passes || 0} passed, ${s.failures || 0} failed, ${s.pending || 0} pending`);
      if (failures > 0) reject(new Error(`${failures} test(s) failed`));
      else if (!s.passes) reject(new Error('no test passed (all pending or none ran)'));
      else resolve();
    });
  });
};
