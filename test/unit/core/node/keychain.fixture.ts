/**
 * Runs keychain steps in a process of its own and prints what each gave, one JSON line each:
 * the binding keeps the session bus it first connected to for the life of the process, so each
 * bus a test uses (a real Secret Service, none) needs its own process, as each DSH session has.
 *   node --import tsx keychain.fixture.ts '[["open"],["set","acct","v"],["get","acct"],["delete","acct"]]'
 */
import { openKeychain, type Keychain } from '../../../../src/core/node/keychain';

async function main(): Promise<void> {
  const steps = JSON.parse(process.argv[2]) as string[][];
  let keychain: Keychain | undefined;
  for (const [op, account, value] of steps) {
    const started = Date.now();
    try {
      if (op === 'open') {
        const r = await openKeychain();
        if (r.ok) keychain = r.keychain;
        console.log(JSON.stringify(r.ok ? { op, ok: true, name: r.keychain.name } : { op, ok: false, problem: r.problem.kind, detail: r.problem.detail }));
        continue;
      }
      const result = op === 'get' ? await keychain!.get(account) : op === 'set' ? await keychain!.set(account, value) : await keychain!.delete(account);
      console.log(JSON.stringify({ op, ok: true, value: result ?? null, ms: Date.now() - started }));
    } catch (error) {
      console.log(JSON.stringify({ op, ok: false, problem: (error as { problem?: { kind: string } }).problem?.kind, detail: String(error), ms: Date.now() - started }));
    }
  }
}
void main();
