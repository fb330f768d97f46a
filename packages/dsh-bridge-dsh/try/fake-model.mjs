// DSH Bridge's local stand-in model, to see the bridge work before wiring a real model: no
// network, no API key. It is a DSH plugin row (added by try/overlay.yml) that registers the
// model provider "dsh-bridge-try". In a session it lists the MCP tools of the FIRST request
// (and whether the language-server tool `lsp` is there), then calls, one per step:
//  - one MCP tool (an echo tool if there is one, else the first whose arguments it can fill);
//  - when the prompt says `lsp hover FILE:LINE:CHARACTER`, the `lsp` tool's hover there;
//  - when the prompt says `skill NAME`, the `skill` tool on that skill;
// and answers with that list and each tool's result. It never writes a file or reads a secret.
export const name = 'dsh-bridge-try-model';
export const inject = ['llm'];

const MESSAGE = 'hello from dsh-bridge';
let firstRequestTools;
let firstRequestLsp;
/** The calls of this session, in order: { name, label, args, result? }. */
let calls;

const say = (text) => [
  { type: 'block-start', index: 0, blockType: 'text' },
  { type: 'text-delta', index: 0, text },
  { type: 'block-end', index: 0, block: { type: 'text', text } },
  { type: 'finish', reason: { kind: 'stop' } },
];

/** Arguments for a tool whose required properties are all strings (or none); undefined otherwise. */
function argumentsFor(tool) {
  const schema = tool.parameters ?? {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  const args = {};
  for (const key of required) {
    if (schema.properties?.[key]?.type !== 'string') return undefined;
    args[key] = MESSAGE;
  }
  return args;
}

function pickMcp(tools) {
  const echo = tools.find((t) => /__echo$/.test(t.name) && argumentsFor(t));
  if (echo) return { tool: echo, args: argumentsFor(echo) };
  for (const tool of tools) {
    const args = argumentsFor(tool);
    if (args) return { tool, args };
  }
  return undefined;
}

/** The text of the session's first user message. */
function promptOf(messages) {
  const first = messages.find((m) => m.role === 'user');
  if (!first) return '';
  if (typeof first.content === 'string') return first.content;
  return (first.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join(' ');
}

/** What the session will call, decided at its first request from the tools offered and the prompt. */
function planCalls(tools, prompt) {
  const planned = [];
  const mcp = pickMcp(tools.filter((t) => t.name.startsWith('mcp__')));
  if (mcp) planned.push({ name: mcp.tool.name, label: mcp.tool.name, args: mcp.args });
  const hover = /\blsp hover (\S+?):(\d+):(\d+)\b/.exec(prompt);
  if (hover && tools.some((t) => t.name === 'lsp')) {
    planned.push({ name: 'lsp', label: `lsp (hover ${hover[1]}:${hover[2]}:${hover[3]})`, args: { operation: 'hover', file_path: hover[1], line: Number(hover[2]), character: Number(hover[3]) } });
  }
  const skill = /\bskill ([\w.-]+)/.exec(prompt);
  if (skill && tools.some((t) => t.name === 'skill')) planned.push({ name: 'skill', label: `skill (${skill[1]})`, args: { name: skill[1] } });
  return planned;
}

function resultText(result) {
  const content = Array.isArray(result.content) ? result.content : [{ text: String(result.content ?? '') }];
  return content.map((c) => c.text ?? '').join('').replace(/\s+/g, ' ').trim().slice(0, 2000);
}

function* callTool(call, id) {
  const args = JSON.stringify(call.args);
  yield { type: 'block-start', index: 0, blockType: 'tool-call' };
  yield { type: 'tool-call-delta', index: 0, id, name: call.name, argumentsDelta: args };
  yield { type: 'block-end', index: 0, block: { type: 'tool-call', id, name: call.name, arguments: args } };
  yield { type: 'finish', reason: { kind: 'tool-calls' } };
}

const adapter = {
  providerInfo: (provider) => ({ id: provider, name: 'DSH Bridge try-it model' }),
  providerRetryPolicy: () => undefined,
  listModels: () => Promise.resolve([]),
  resolveModel: (provider, model) => Promise.resolve({ provider, id: model, name: model, context: { contextWindow: 1000000 } }),
  async *stream(options) {
    const tools = options.tools ?? [];
    if (tools.length === 0) { yield* say('DSH Bridge try-it'); return; } // a side request (the session title)
    firstRequestTools ??= tools.filter((t) => t.name.startsWith('mcp__')).map((t) => t.name);
    firstRequestLsp ??= tools.some((t) => t.name === 'lsp');
    calls ??= planCalls(tools, promptOf(options.messages ?? []));
    const listed = `MCP tools in the first request (${firstRequestTools.length}): ${firstRequestTools.join(', ') || 'none'}\n`
      + `Language-server tool in the first request: ${firstRequestLsp ? 'lsp' : 'none'}`;
    const result = options.messages.at(-1)?.content?.find?.((b) => b.type === 'tool-result');
    const pending = calls.find((c) => c.result === undefined && c.called);
    if (result && pending) pending.result = resultText(result);
    const next = calls.find((c) => !c.called);
    if (next) {
      next.called = true;
      yield* callTool(next, `try-${calls.indexOf(next) + 1}`);
      return;
    }
    if (!calls.length) {
      yield* say(`${listed}\nNo MCP tool to call. See why with: dsh-bridge doctor --workspace ${JSON.stringify(process.cwd())}`);
      return;
    }
    yield* say([listed, ...calls.map((c) => `Called ${c.label}: ${c.result ?? '(no result)'}`)].join('\n'));
  },
};

export function apply(ctx) {
  ctx.llm.registerAdapter(['dsh-bridge-try'], adapter);
}
