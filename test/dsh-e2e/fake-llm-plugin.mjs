// Test overlay row for the full dsh-base boot: registers the scripted fake adapter (the only
// mock: no model runs here) that the test put on globalThis before booting.
export const name = 'dsh-bridge-e2e-fake-llm';
export const inject = ['llm'];
export function apply(ctx) {
  const fake = globalThis.__dshBridgeE2E;
  if (!fake) throw new Error('the e2e test did not provide a fake adapter');
  ctx.llm.registerAdapter(['fake'], fake.adapter);
}
