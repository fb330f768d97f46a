/**
 * The environment a probe passes on as DSH's parent environment: the extension host's, without
 * the variables the editor sets for itself (a DSH session started from a terminal has none of
 * them). The core then scrubs it by DSH's own rule.
 */
export function editorFreeEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(env)) {
    if (/^(VSCODE_|ELECTRON_)/.test(name) || name === 'APPLICATION_INSIGHTS_NO_DIAGNOSTIC_CHANNEL') continue;
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
