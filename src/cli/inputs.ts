import { analyzeWorkspaceFolder } from '../core/app/folderSources';
import { CommandUsageError, type CommandContext } from './context';
import { table } from './table';
import { readSecret } from './readSecret';

export const INPUTS_USAGE = [
  'inputs   Manage input values on this machine (never in the workspace):',
  '           inputs set <id>      value read from stdin (masked on a terminal)',
  '           inputs list          ids referenced by the declaration, stored or missing',
  '           inputs forget [<id>] forget one value, or all of this folder\'s',
].join('\n  ');

/** `dsh-bridge inputs set <id> | list | forget [<id>]`: the folder's input values in the host store. */
export async function runInputs(ctx: CommandContext): Promise<number> {
  const { identity, json, io } = ctx;
  const { folder } = identity;
  const { store } = ctx.ports;
  const [sub, ...args] = ctx.args;
  switch (sub) {
    case 'set': {
      if (args.length !== 1) throw new CommandUsageError('"inputs set" takes the input id; the value is read from stdin, never from the command line');
      const value = await readSecret(`Value for ${args[0]}: `);
      if (value === undefined) {
        io.err('dsh-bridge: no value given; nothing stored.');
        return 1;
      }
      const inKeychain = await store.setInput(folder, args[0], value);
      const state = await store.inputStoreState();
      const where = state.store === 'keychain' && inKeychain ? `the ${state.name}` : `a 0600 file in ${store.bridgeDir}`;
      if (json) io.out(JSON.stringify({ stored: args[0], store: inKeychain ? 'keychain' : 'files' }));
      else io.out(`Stored a value for "${args[0]}" for ${folder} (in ${where}, not in the workspace).${inKeychain ? '' : ' dsh-bridge doctor says why no OS keychain is used and how to get one.'}`);
      return 0;
    }
    case 'list': {
      if (args.length) throw new CommandUsageError('"inputs list" takes no argument');
      const record = await store.readFolder(folder);
      const analysis = await analyzeWorkspaceFolder(ctx.ports, identity);
      const declared = analysis.inputs.map((i) => i.id);
      const ids = [...new Set([...declared, ...record.inputs.keys()])].sort();
      const rows = ids.map((id) => ({ id, stored: record.inputs.has(id), referenced: declared.includes(id) }));
      if (json) io.out(JSON.stringify({ inputs: rows }));
      else if (!rows.length) io.out('No inputs referenced or stored for this folder.');
      else io.out(table([['INPUT', 'VALUE', 'REFERENCED'], ...rows.map((r) => [r.id, r.stored ? 'stored' : 'missing', r.referenced ? 'yes' : 'no'])]));
      return 0;
    }
    case 'forget': {
      if (args.length > 1) throw new CommandUsageError('"inputs forget" takes at most one input id');
      await store.forgetInput(folder, args[0]);
      if (json) io.out(JSON.stringify({ forgotten: args[0] ?? null }));
      else io.out(args[0] ? `Forgot the value of "${args[0]}".` : 'Forgot every stored value of this folder.');
      return 0;
    }
    default:
      throw new CommandUsageError('"inputs" needs one of: set <id>, list, forget [<id>]');
  }
}
