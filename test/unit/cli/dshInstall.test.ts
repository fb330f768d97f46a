import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { nodeFitsDsh } from '../../../src/core/node/dshSide';
import { tempDir } from '../helpers';
import { CLI, ROOT, cli } from '../core/app/doctor.fixture';

describe('dsh-bridge dsh install (dist/cli.js)', function () {
  this.timeout(60000);
  before(function () {
    if (!existsSync(CLI)) spawnSync('node', ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  });

  it('dsh install refuses before touching anything: a Node that is not >= 22.19, a path the wrapper cannot quote, a usage error', () => {
    const home = tempDir('doctor-home-');
    const notNode = cli(['dsh', 'install', '--node', '/bin/false'], home);
    assert.equal(notNode.status, 1);
    assert.match(notNode.stderr, /dsh install stopped: DSH rc\.8 needs Node >= 22\.19, and \/bin\/false is not a working node\. Run again with --node auto /);
    // A Node that runs but is too old: the way out is named, with the exact npm command it takes.
    const old = path.join(tempDir('old-node-'), 'node');
    writeFileSync(old, '#!/bin/sh\necho v20.1.0\n', { mode: 0o755 });
    const tooOld = cli(['dsh', 'install', '--node', old], home);
    assert.equal(tooOld.status, 1);
    // The Node version it pins, as its help names it.
    const PINNED_NODE_VERSION = /else Node (\d+\.\d+\.\d+) from npm/.exec(cli(['dsh', '--help'], home).stdout)?.[1];
    assert.ok(PINNED_NODE_VERSION);
    assert.ok(tooOld.stderr.includes(`and ${old} is v20.1.0. Run again with --node auto to install Node ${PINNED_NODE_VERSION} from npm into ${path.join(home, 'launcher', 'node')} `
      + `(what it runs there: npm install --ignore-scripts --save-exact node-${process.platform}-${process.arch}@${PINNED_NODE_VERSION}), or with --node /path/to/node (22.19 or newer)`), tooOld.stderr);
    const quoted = cli(['dsh', 'install', '--node', '/opt/node"$(id)"/bin/node'], home);
    assert.equal(quoted.status, 1);
    assert.match(quoted.stderr, /has a character the dsh wrapper cannot quote/);
    assert.equal(cli(['dsh', 'frob'], home).status, 2);
    assert.equal(cli(['dsh', 'install', '--profile', '../x'], home).status, 2);
    assert.deepEqual(readdirSync(home), [], 'nothing was written into the DSH home');
  });

  it('--node auto on a Node older than DSH needs: Node 24 from npm into the DSH home, once', function () {
    // The real npm installs the real Node package (from npm's cache when it has it); the DSH
    // launcher's install that follows (450 packages, minutes) is stopped by an npm stand-in.
    if (nodeFitsDsh(process.version)) this.skip(); // this Node fits: --node auto uses it and installs nothing
    this.timeout(300000);
    const home = tempDir('doctor-home-');
    const bin = tempDir('npm-stand-in-');
    const realNpm = execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();
    writeFileSync(path.join(bin, 'npm'), `#!/bin/sh\ncase "$*" in *" node-${process.platform}-${process.arch}@"*) exec "${realNpm}" "$@";; esac\necho "stopped by the test: npm $*" >&2\nexit 3\n`, { mode: 0o755 });
    const env = { ...process.env, DSH_HOME: home, PATH: `${bin}:${path.dirname(process.execPath)}:/usr/bin:/bin`, npm_config_prefer_offline: 'true' };
    const auto = () => spawnSync(process.execPath, [CLI, 'dsh', 'install', '--node', 'auto'], { env, encoding: 'utf8' });
    const first = auto();
    const PINNED_NODE_VERSION = /^Node: installed (\S+) /m.exec(first.stdout)?.[1];
    assert.ok(PINNED_NODE_VERSION && nodeFitsDsh(`v${PINNED_NODE_VERSION}`), first.stdout + first.stderr);
    const dir = path.join(home, 'launcher', 'node');
    assert.ok(first.stdout.includes(`Node: installed ${PINNED_NODE_VERSION} (node-${process.platform}-${process.arch}) in ${dir}`), first.stdout + first.stderr);
    assert.match(first.stderr, /dsh install stopped: npm install of the DSH launcher failed \(exit 3\)/);
    const node = path.join(dir, 'node_modules', `node-${process.platform}-${process.arch}`, 'bin', 'node');
    assert.equal(execFileSync(node, ['--version'], { encoding: 'utf8' }).trim(), `v${PINNED_NODE_VERSION}`);
    const again = auto();
    assert.ok(again.stdout.includes(`Node: ${PINNED_NODE_VERSION} already in ${dir}`), again.stdout);
  });
});
