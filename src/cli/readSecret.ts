import * as readline from 'node:readline';

/**
 * Reads one secret value from stdin. On a terminal the prompt goes to stderr and typing is
 * not echoed; from a pipe the first line (or the whole input without its final newline) is
 * the value. Undefined when nothing was given.
 */
export async function readSecret(prompt: string, input: NodeJS.ReadStream = process.stdin): Promise<string | undefined> {
  if (!input.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of input) chunks.push(Buffer.from(chunk));
    const text = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
    return text === '' ? undefined : text;
  }
  process.stderr.write(prompt);
  const rl = readline.createInterface({ input, terminal: true });
  // Mute echo: readline writes typed characters through _writeToOutput.
  (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = () => undefined;
  const value = await new Promise<string>((resolve) => rl.once('line', resolve));
  rl.close();
  process.stderr.write('\n');
  return value === '' ? undefined : value;
}
