// Workspaces for the language-server and skill-root e2e: a TypeScript project whose editor
// settings name the real typescript-language-server, and skill roots of every kind.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cli, trustSkillRoot } from './fixtures.mjs';
import { HOST_DIR } from './host.mjs';

export const TLS_CLI = path.join(HOST_DIR, 'node_modules/typescript-language-server/lib/cli.mjs');

const write = (file, text) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};

/**
 * A folder whose `.vscode/settings.json` maps `.ts` to typescript-language-server (run by this
 * Node, so no PATH lookup), exported by our CLI. main.ts line 3 calls lib.greet, declared at
 * lib.ts line 3, character 17.
 */
export function typescriptWorkspace(root, name, home) {
  const folder = path.join(root, name);
  write(path.join(folder, '.vscode/mcp.json'), '{ "servers": {} }\n');
  write(path.join(folder, '.vscode/settings.json'), `${JSON.stringify({
    'dsh.lsp.servers': {
      ts: {
        command: process.execPath,
        args: [TLS_CLI, '--stdio'],
        extensions: { '.ts': 'typescript' },
        // Without it, typescript-language-server answers from tsserver's syntax-only server while
        // the project loads: a cross-file definition then comes back empty on a cold server.
        initializationOptions: { tsserver: { useSyntaxServer: 'never' } },
      },
    },
  }, null, 2)}\n`);
  write(path.join(folder, 'tsconfig.json'), '{ "compilerOptions": { "strict": true, "module": "commonjs", "target": "es2022" }, "include": ["*.ts"] }\n');
  write(path.join(folder, 'lib.ts'), '// A library.\n\nexport function greet(name: string): string {\n  return `hi ${name}`;\n}\n');
  write(path.join(folder, 'main.ts'), "import * as lib from './lib';\n\nconsole.log(lib.greet('x'));\n");
  cli(home, ['export', '--workspace', folder]);
  return folder;
}

export const skillFile = (name, description, body) => `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`;

/**
 * K: a git project with a trusted `.dsh/skills` (proj-helper) and an untrusted `.agents/skills`
 * (sneaky, and shared-name which the user's own root also has). N: a project without any bridge
 * state whose `.dsh/skills` holds n-skill. The user's root (`<home>/skills`) holds shared-name
 * and user-only.
 */
export function skillWorkspaces(root, home) {
  const K = path.join(root, 'K');
  fs.mkdirSync(path.join(K, '.git'), { recursive: true });
  write(path.join(K, '.dsh/skills/proj-helper/SKILL.md'), skillFile('proj-helper', 'Project helper', 'PROJECT HELPER BODY'));
  write(path.join(K, '.agents/skills/sneaky/SKILL.md'), skillFile('sneaky', 'Looks helpful', 'SNEAKY BODY'));
  write(path.join(K, '.agents/skills/shared-name.md'), skillFile('shared-name', 'Project version', 'PROJECT SHARED BODY'));
  const N = path.join(root, 'N');
  fs.mkdirSync(path.join(N, '.git'), { recursive: true });
  write(path.join(N, '.dsh/skills/n-skill/SKILL.md'), skillFile('n-skill', 'From an unreviewed repository', 'N SKILL BODY'));
  write(path.join(home, 'skills/shared-name/SKILL.md'), skillFile('shared-name', 'User version', 'USER SHARED BODY'));
  write(path.join(home, 'skills/user-only/SKILL.md'), skillFile('user-only', 'Only in the user root', 'USER ONLY BODY'));
  trustSkillRoot(home, path.join(K, '.dsh/skills'), K);
  return { K, N };
}

/** Live typescript-language-server processes (any parent) whose cwd is `folder`. */
export function languageServers(folder) {
  const real = fs.realpathSync(folder);
  const out = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (!cmdline.includes(TLS_CLI)) continue;
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] === 'Z') continue;
      if (fs.readlinkSync(`/proc/${entry}/cwd`) === real) out.push(Number(entry));
    } catch {
      // ended while we looked
    }
  }
  return out;
}

/** The skill names of the latest catalog (first or replacement) the model saw in a request. */
export function catalogNames(request) {
  const texts = request.messages.flatMap((m) => (m.content ?? []).filter((b) => b.type === 'text').map((b) => b.text)).filter((t) => t.includes('<available_skills>'));
  if (!texts.length) return undefined;
  const last = texts.at(-1);
  const list = last.slice(last.indexOf('<available_skills>'), last.indexOf('</available_skills>'));
  return [...list.matchAll(/^- `([^`]+)`/gm)].map((m) => m[1]);
}
