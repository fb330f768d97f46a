// DSH Bridge's local stand-in model, to see the bridge work before wiring a real model: no
// network, no API key. It is a DSH plugin row (added by try/overlay.yml) that registers the
// model provider "dsh-bridge-try". In a session it lists the MCP tools of the FIRST request
// (and whether the language-server tool `lsp` is there),
// calls one of them (an echo tool if there is one, else the first whose arguments it can fill),
// and answers with that list and the tool's result. It never writes a file or reads a secret.
export const name = 'dsh-bridge-try-model';
export const inject = ['llm'];

const MESSAGE = 'hello from dsh-bridge';
let firstRequestTools;
let firstRequestLsp;
let called;

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

function pick(tools) {
  const echo = tools.find((t) => /__echo$/.test(t.name) && argumentsFor(t));
  if (echo) return { tool: echo, args: argumentsFor(echo) };
  for (const tool of tools) {
    const args = argumentsFor(tool);
    if (args) return { tool, args };
  }
  return undefined;
}

const adapter = {
  providerInfo: (provider) => ({ id: provider, name: 'DSH Bridge try-it model' }),
  providerRetryPolicy: () => undefined,
  listModels: () => Promise.resolve([]),
  resolveModel: (provider, model) => Promise.resolve({ provider, id: model, name: model, context: { contextWindow: 1000000 } }),
  async *stream(options) {
    const tools = options.tools ?? [];
    if (tools.length === 0) { yield* say('DSH Bridge try-it'); return; } // a side request (the session title)
    const mcp = tools.filter((t) => t.name.startsWith('mcp__'));
    firstRequestTools ??= mcp.map((t) => t.name);
    firstRequestLsp ??= tools.some((t) => t.name === 'lsp');
    const listed = `MCP tools in the first request (${firstRequestTools.length}): ${firstRequestTools.join(', ') || 'none'}\n`
      + `Language-server tool in the first request: ${firstRequestLsp ? 'lsp' : 'none'}`;
    const result = options.messages.at(-1)?.content?.find?.((b) => b.type === 'tool-result');
    if (result) {
      const text = (result.content ?? []).map((c) => c.text ?? '').join('').slice(0, 2000);
      yield* say(`${listed}\nCalled ${called ?? 'a tool'}: ${text}`);
      return;
    }
    const chosen = pick(mcp);
    if (!chosen) {
      yield* say(`${listed}\nNo MCP tool to call. See why with: dsh-bridge doctor --workspace ${JSON.stringify(process.cwd())}`);
      return;
    }
    const args = JSON.stringify(chosen.args);
    called = chosen.tool.name;
    yield { type: 'block-start', index: 0, blockType: 'tool-call' };
    yield { type: 'tool-call-delta', index: 0, id: 'try-1', name: chosen.tool.name, argumentsDelta: args };
    yield { type: 'block-end', index: 0, block: { type: 'tool-call', id: 'try-1', name: chosen.tool.name, arguments: args } };
    yield { type: 'finish', reason: { kind: 'tool-calls' } };
  },
};

export function apply(ctx) {
  ctx.llm.registerAdapter(['dsh-bridge-try'], adapter);
}
