import { PROBLEM_CATALOG } from './problemCatalog';
import { SCAN_CODES } from '../scan/scanCodes';

/**
 * What to do about any code of the scan: one text for every scan code, since docs/poisoning.md
 * explains each rule with an example (one translation to keep, not one per code).
 */
const SCAN_FIX = 'What the rule finds, with an example: [docs/poisoning.md](poisoning.md#rules). An error withholds the tool or skill from DSH sessions until you accept that exact definition ([how](poisoning.md#accepting-a-definition)); any change withholds it again. A warning or an information is shown only.';

/** What to do about a code, where the message alone does not say it. */
const PROBLEM_FIXES: Readonly<Record<string, string>> = {
  'invalid-json': 'Fix the syntax at the marked position. Until then nothing is exported and the previous declaration is reported stale: a half-written entry never launches.',
  'duplicate-key': 'Delete one of the two definitions. JSON readers disagree about which one wins, so the whole server is refused until only one is left; a duplicated `servers` or `inputs` at the top makes the whole file unusable (nothing is exported), and both occurrences are marked.',
  'too-deep': 'Flatten the value: no MCP configuration needs this depth. Every reader of the bridge checks depth first, so a hostile file cannot exhaust the stack.',
  'reserved-key': 'Rename the variable or header. `__proto__`, `constructor` and `prototype` are refused rather than passed on, because JavaScript readers on the way (schema checks, DSH) may drop or misread them.',
  'env-file-unreadable': 'Create the file (or fix its path) and export again. The export reads the envFile to sign its content: a later edit makes the declaration stale, and in the pinned mode asks for a new approval.',
  'env-file-unpinnable': 'Write the envFile path so that it is known at export: a literal path, or one built with `${workspaceFolder}` or `${userHome}`.',
  'too-many-servers': 'Split the configuration; 512 servers is far beyond what a session can use.',
  'value-too-long': 'Move large data into a file the server reads.',
  'wrong-root-key': 'Quick fix: rename `mcpServers` to `servers`, or, when `servers` exists too, move the entries into it (what VS Code itself does to the file: an entry of `mcpServers` replaces one of the same name in `servers`). Until then the bridge exports what VS Code runs.',
  'wrong-dialect': 'Quick fix: rename `servers` to `mcpServers`. `.mcp.json` is Claude Code\'s file (VS Code reads it too); VS Code\'s own format with `servers` and `inputs` belongs in `.vscode/mcp.json`.',
  'shadowed-server': 'Rename one of the two servers, or remove the one you do not want. A name belongs to its first definition in VS Code\'s order (`.vscode/mcp.json`, `.mcp.json`, the `.code-workspace` file, the dev container configuration; in a file, its entries in order), compared ignoring case, even when that one is refused (an `sse` server, say): VS Code disables the later ones (`chat.mcp.collisionBehavior` "disable", its default), and the bridge exports none of them. In one file a `mcpServers` entry replaces a `servers` entry of the same name, as VS Code merges them. Two servers that would get one DSH name are told apart the same way.',
  'declaration-committable': 'The repository\'s own `.dsh/.gitignore` does not ignore `declaration.json` by git\'s rules (the last matching line decides; `!` re-includes), so a commit can carry it, though it is made for one machine (its key, its folder). The export keeps the file and warns. Quick fix: add `declaration.json` as its last line.',
  'duplicate-server': 'As `shadowed-server`, with `chat.mcp.collisionBehavior` "suffix": VS Code runs both and numbers their tool names by the name each server reports when it runs, which an export cannot know; DSH runs one server per name, so only the first definition is exported. Rename one to run both.',
  'unknown-field': 'Remove the field or check its spelling.',
  'undefined-input': 'Quick fix: define the input (a masked `promptString` when the id looks like a credential).',
  'unsupported-variable': 'Replace the variable with a literal, `${workspaceFolder}`, `${userHome}`, `${input:id}` or `${env:NAME}`.',
  'literal-variable': 'VS Code\'s resolver returns a name it does not know unchanged (Claude Code and Gemini CLI would expand `${HOME}` from the environment; VS Code does not). The server is exported with the text as written. Write `${env:NAME}` when the server should get the environment variable.',
  'not-resolved-here': 'VS Code starts the servers of `.mcp.json` without resolving variables, inputs included (`.mcp.json` has no `inputs`): `${input:id}`, `${env:NAME}` and `${workspaceFolder}` reach the server as written, and the bridge exports them the same way. Move the server to `.vscode/mcp.json` to use inputs and variables.',
  'unsupported-transport': 'Quick fix: `sse` -> `http` when the server also speaks Streamable HTTP (most current servers do).',
  'unsupported-auth': 'Pass a token through a header: `"headers": {"Authorization": "Bearer ${input:token}"}` with a `password: true` input.',
  'unsupported-sandbox': 'Quick fix: remove `sandboxEnabled` to export the server without a sandbox, knowingly.',
  'literal-secret': 'Replace the value with `${input:id}` (a `password: true` input, kept in secret storage and the host store) or `${env:NAME}`. Also reported: the password of a connection string in `env` or `args` (`postgresql://app:PASSWORD@host/app`: write `postgresql://app:${input:db-password}@host/app`, since VS Code resolves `${input:...}` inside a string), and a credential header passed as an argument (`--header "Authorization: Bearer ..."`, `-H "X-Api-Key: ..."`).',
  'secret-in-args': 'No automatic fix: only you know whether the server can read the value from an environment variable instead.',
  'unmasked-secret-input': 'Quick fix: add `"password": true` to the input.',
  'insecure-url': 'Use `https://`, or a loopback address for a local server.',
  'url-credentials': 'Remove `user:password@` from the URL and send the credential in a header built from an input.',
  'policy-denied': 'No quick fix: the rule is your organization\'s (`chat.mcp.deniedServers`, policy `ChatDeniedMcpServers`), and the bridge does not export what VS Code would not run. Remove the server, or ask your administrator. See [docs/policy.md](policy.md).',
  'policy-not-allowed': 'No quick fix: when an allowlist is set (`chat.mcp.allowedServers`, policy `ChatAllowedMcpServers`; with `ChatAllowManagedMcpServersOnly` only the policy\'s own list counts), only servers matching an entry by name, URL pattern or exact command are exported. An empty allowlist blocks every server. See [docs/policy.md](policy.md).',
  'policy-unresolved': 'Write the command and arguments (or the URL) without `${input:...}` / `${env:...}` so the rule can be checked at export, or ask for a name rule (`serverName`). VS Code checks such a server when it starts it; the export has no start to wait for, so it does not let it through.',
  'policy-access': '`chat.mcp.access` (policy `ChatMCP`) is `none` (no MCP server runs) or `registry` (only servers installed from the registry run, and no server of a workspace file is one). Nothing from the folder is exported while it is set.',
  'policy-sandbox': 'No quick fix: GitHub Copilot\'s managed settings set `sandbox.enabled: true` without `sandbox.allowBypass`, and DSH cannot run an MCP server in a sandbox, so no local (stdio) server is exported, and the DSH plugin withholds every local server at mount. A remote server is not affected. Ask your administrator; `dsh-bridge policy` shows the channel. See [docs/policy.md](policy.md).',
  'policy-managed-unreadable': 'No quick fix: a channel of GitHub Copilot\'s managed settings (the file, the registry or the managed preferences) cannot be read, or holds a malformed MCP value; the message gives the place. VS Code logs it and applies none of that channel; the bridge fails closed instead: nothing is exported and the DSH plugin withholds every server until it is repaired. See [docs/policy.md](policy.md).',
  'unpinned-package': 'Pin the version the launcher runs, so that an approval covers what actually starts.',
  'server-renamed': 'Nothing to do; rename the server in mcp.json if you want the DSH name to match. Tool names are `mcp__<serverName>__<tool>`.',
  'env-null-dropped': 'If the server must not see the variable, unset it in the environment DSH runs in.',
  'lsp-none-registered': 'Fix every invalid language server entry: DSH registers the row all or nothing.',
  'skill-unreadable': 'Replace the link, pipe or device with a regular file inside the root, or shrink the file. A repository can commit links and special files; the bridge does not follow them out of a project or home root.',
  'skill-shadowed': 'Rename one of the skills, or remove the one you do not want.',
  'skill-root-changed': 'Review the root again (*DSH: Review Skill Roots*, or `dsh-bridge skills list` then `dsh-bridge skills trust <root>`). Until then the DSH plugin withholds the root\'s skills from every session (a trusted lower-rank skill of the same name is offered instead); the trust records live in the DSH home, so no export is needed.',
  'tools-invalid-setting': 'Write `dsh.tools` as an object: `{"<server name>": {"exclude": ["tool"]}}`. Until then DSH is offered no tool of any server of the workspace (a tool choice only narrows, so a value that cannot be read allows nothing).',
  'tools-invalid-entry': 'Give the server an object with `exclude` (tools to leave out) and/or `only` (the only tools to allow). Until then no tool of that server is offered.',
  'tools-invalid-list': 'Write the value as a list of tool names, e.g. `["read_file"]`. Until then no tool of that server is offered. Quick fix, when the value is one tool name: make it a list of that name. The problem shows where it is written (`.vscode/settings.json`, the `.code-workspace` file or the user settings) and in `dsh-bridge check`.',
  'tools-invalid-name': 'Write each tool name as a non-blank string, as the server lists it (*DSH: Probe MCP Servers* or `dsh-bridge probe` shows the names). Quick fix: remove the item (it is ignored already).',
  'tools-invalid-excluded-name': 'Write each tool name as a non-blank string. Until then no tool of that server is offered: the tool meant to be left out cannot be known.',
  'tools-unknown-key': 'Remove the key or check its spelling: only `exclude` and `only` are read. Quick fix: remove the key.',
  'skill-root-too-large': 'Split the root or move large files out of it: a root that cannot be pinned is never trusted, so the DSH plugin withholds its skills (project and custom roots).',
  'probe-did-not-start': 'The probe started the server exactly as DSH would (its command, args, env with the host store\'s input values, cwd) and it exited or could not be spawned; the first lines of its stderr follow, with known secrets masked. Fix what they say, then *DSH: Probe MCP Servers* again. DSH would fail the same way.',
  'probe-timed-out': 'The server did not answer `initialize` and the tool list in time. A first `npx`/`uvx` run may be downloading: probe again. A server that needs an interactive login cannot be probed (nor started by DSH).',
  'probe-newer-mcp': 'The server speaks MCP 2026-07-28 (stateless: no `initialize`, it answers `server/discover`) and no earlier revision, while DSH\'s MCP client (the MCP SDK 1.32) begins every connection with `initialize`. No setting mends it: use a release of the server that also speaks 2025-11-25, or wait for a DSH whose client speaks 2026-07-28. The probe asked `server/discover` only to tell this apart from a server that does not speak MCP.',
  'probe-not-mcp': 'The process started but wrote something that is not MCP JSON-RPC on stdout (a banner, logs), or sent one message of more than 10 MiB (a stdio line, an HTTP answer, an SSE event). Make it log to stderr, or check that the command starts the MCP server and not a CLI.',
  'probe-refused': 'The server was not started: the row DSH would build is incomplete (a missing input value: *DSH: Enter MCP Input Values...*; a working folder that no longer exists).',
  'tool-changed': 'Read the tool\'s new description and schema in the *MCP Servers for DSH* view (hover the tool). If you accept them, use the quick fix *Re-probe and accept its tools*: it probes the server again and exports, signing the new pins. Until then DSH sessions do not offer that tool, and in `ask` mode DSH asks again showing the change.',
  ...Object.fromEntries(Object.keys(SCAN_CODES).map((code) => [code, SCAN_FIX])),
  'declaration-stale-setting': 'The export signs every settings layer of `dsh.tools`, `dsh.lsp.servers`, `dsh.skills.customRoots` and `dsh.export.*`; this one was edited since, so the DSH plugin refuses the declaration (nothing of it mounts) and `verify`, `doctor` and the status item say stale. Quick fix: *Export MCP Servers to DSH*, which signs the new value. To keep what was exported instead, undo the edit: the problem goes away when the value is the signed one again.',
  'tool-carries-secret': 'The probe found the value of an input stored on this machine in the tool\'s name, description or input schema (the server put it there, e.g. a tool named after its API key). DSH would send that definition to the model with every request, so the plan and the DSH plugin withhold the tool whatever its pin, `dsh.tools` or an acceptance say; `probe`, the host store, the declaration and the logs show its name with the value masked. No setting lets it in: have the server\'s authors fix it, and rotate the value if a model may have seen it ([session plan](session-plan.md)).',
  'tool-new': 'The server offers a tool the declaration has no pin for. Check it in the view; the quick fix *Re-probe and accept its tools* pins it (or leave it out with its checkbox, which writes `dsh.tools`).',
};

/** The words of the page around the catalog's templates and the fixes: l10n messages too. */
const PROBLEM_PAGE_WORDS = {
  heading: 'DSH Bridge problem codes',
  intro: 'Every problem DSH Bridge reports in the editor (and the CLI prints) has a code; the code in the Problems panel links to its entry here: what it means and what to do about it.',
  severity: { error: 'error', warning: 'warning', info: 'info' } as Readonly<Record<string, string>>,
} as const;

/** The problem-code page's fix for a code, if it has one; `quickFix: false` drops a leading "Quick fix:" (where no editor offers one). */
export function problemFix(code: string, { quickFix = true } = {}): string | undefined {
  if (!Object.hasOwn(PROBLEM_FIXES, code)) return undefined;
  return quickFix ? PROBLEM_FIXES[code] : PROBLEM_FIXES[code].replace(/^Quick fix: /, '');
}

/**
 * The page every problem code links to: each code with its severity, its message and what to do,
 * every text through `t` (English as it is; `npm run docs` passes the zh-CN texts). `npm run docs`
 * writes it to docs/problem-codes.md and docs/problem-codes.zh-cn.md with a line linking the other
 * language (`links`); the editor links each code to its heading there, on GitHub (the .vsix ships
 * neither the page nor its fixes).
 */
export function problemCodesPage(t: (english: string) => string = (s) => s, links: readonly string[] = []): string {
  const out: string[] = [`# ${t(PROBLEM_PAGE_WORDS.heading)}`, '', t(PROBLEM_PAGE_WORDS.intro), ...links, ''];
  for (const { area, codes } of PROBLEM_CATALOG) {
    out.push(`## ${t(area)}`, '');
    for (const [code, [severity, template]] of Object.entries(codes)) {
      const severityWord = Object.hasOwn(PROBLEM_PAGE_WORDS.severity, severity) ? t(PROBLEM_PAGE_WORDS.severity[severity]) : severity;
      out.push(`### \`${code}\``, '', `*${severityWord}* — ${t(template).replace(/\{(\w+)\}/g, '*$1*')}`, '');
      if (Object.hasOwn(PROBLEM_FIXES, code)) out.push(t(PROBLEM_FIXES[code]), '');
    }
  }
  return out.join('\n');
}
