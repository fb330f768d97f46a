// A --patch overlay row for the real `dsh` launcher (launcher-check.sh): a self-contained,
// scripted fake model (the only mock). On the first loop request it calls
// mcp__everything__echo if that tool is listed; after the tool result it answers with the
// result and whether the FIRST request listed the tool.
export const name = 'dsh-bridge-launcher-fake-llm';
export const inject = ['llm'];

let firstHadEcho;
const text = (t) => [
  { type: 'block-start', index: 0, blockType: 'text' },
  { type: 'text-delta', index: 0, text: t },
  { type: 'block-end', index: 0, block: { type: 'text', text: t } },
  { type: 'finish', reason: { kind: 'stop' } },
];

const adapter = {
  providerInfo: (provider) => ({ id: provider, name: provider }),
  providerRetryPolicy: () => undefined,
  listModels: () => Promise.resolve([]),
  resolveModel: (provider, model) => Promise.resolve({ provider, id: model, name: model, context: { contextWindow: 1000000 } }),
  async *stream(options) {
    const tools = (options.tools ?? []).map((t) => t.name);
    if (tools.length === 0) { yield* text('title'); return; } // side request (session title)
    firstHadEcho ??= tools.includes('mcp__everything__echo');
    const last = options.messages.at(-1);
    const result = last?.content?.find?.((b) => b.type === 'tool-result');
    if (result) {
      yield* text(`RESULT: ${result.content.map((c) => c.text ?? '').join('')}; FIRST_REQUEST_HAD_ECHO=${firstHadEcho}`);
      return;
    }
    if (!tools.includes('mcp__everything__echo')) { yield* text(`NO_ECHO_TOOL; FIRST_REQUEST_HAD_ECHO=${firstHadEcho}`); return; }
    const args = JSON.stringify({ message: 'hello from the dsh launcher' });
    yield { type: 'block-start', index: 0, blockType: 'tool-call' };
    yield { type: 'tool-call-delta', index: 0, id: 'call-1', name: 'mcp__everything__echo', argumentsDelta: args };
    yield { type: 'block-end', index: 0, block: { type: 'tool-call', id: 'call-1', name: 'mcp__everything__echo', arguments: args } };
    yield { type: 'finish', reason: { kind: 'tool-calls' } };
  },
};

export function apply(ctx) {
  ctx.llm.registerAdapter(['fake'], adapter);
}
