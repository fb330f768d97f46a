// @vscode/test-cli configuration: `npm run test:electron` runs the SAME integration suites as
// `npm run test:integration` (test/integration/suites/<fixture>/*.test.js), but inside a desktop
// VS Code (Electron) that @vscode/test-electron downloads, or one you point at:
//   DSH_BRIDGE_VSCODE_PATH=/path/to/code npm run test:electron     (no download)
//   DSH_BRIDGE_VSCODE_VERSION=1.101.0 npm run test:electron        (default: stable)
// Needs Node >= 22 (@vscode/test-cli) and either a network path to VS Code's download servers or a
// local installation; on Linux without a display, run it under xvfb-run.
// Each suite folder is one test run on a fresh copy of test/fixtures/<fixture> under
// .test-runs/electron/ (so nothing the tests or the extension write lands in the repo).
import { defineConfig } from '@vscode/test-cli';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyFixture, suiteHostEnv, workspaceTarget } from './test/harness/lib.mjs';

const root = path.dirname(fileURLToPath(import.meta.url));
const suitesDir = path.join(root, 'test/integration/suites');
const runDir = path.join(root, '.test-runs/electron');

// The same fixture copy as the code-server runs: multi-root through its *.code-workspace file,
// a `.project-root` marker made into an empty .git.
function workspaceCopy(fixture) {
  return workspaceTarget(copyFixture({ workspaces: path.join(runDir, 'workspaces') }, fixture));
}

const installation = process.env.DSH_BRIDGE_VSCODE_PATH
  ? { useInstallation: { fromPath: process.env.DSH_BRIDGE_VSCODE_PATH } }
  : { version: process.env.DSH_BRIDGE_VSCODE_VERSION || 'stable' };

export default defineConfig(
  fs.readdirSync(suitesDir).sort().map((fixture) => ({ fixture, workspace: workspaceCopy(fixture) })).map(({ fixture, workspace }) => ({
    label: `integration:${fixture}`,
    files: `test/integration/suites/${fixture}/**/*.test.js`,
    workspaceFolder: workspace,
    ...installation,
    mocha: { ui: 'bdd', timeout: 300000, color: true },
    launchArgs: ['--disable-extensions', '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes'],
    // test-cli's default user data dir: the editor's user settings file, handed to the CLI by ws-faces.
    // A suite's own host-env.json (`${workspace}`: the fixture's copy, the folder of a .code-workspace file).
    env: {
      DSH_HOME: path.join(runDir, 'dsh-home'), DSH_BRIDGE_USER_SETTINGS: path.join(root, '.vscode-test/user-data/User/settings.json'),
      ...suiteHostEnv(path.join(suitesDir, fixture), workspace.endsWith('.code-workspace') ? path.dirname(workspace) : workspace),
    },
  })),
);
