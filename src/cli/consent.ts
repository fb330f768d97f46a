import * as readline from 'node:readline';
import type { CommandContext } from './context';

/**
 * The CLI's consent to what lets a withheld tool or skill through (`tools accept`, `skills accept`,
 * `skills trust`), as `approve` asks for a launch: `--pin PIN` is the consent to the content that
 * has that pin (the use case checks it); without it, on a terminal, the review is printed and
 * answered y/N; without a terminal nothing is accepted, and the command with the pin is printed,
 * so a script accepts exactly what was reviewed.
 */
export function pinConsent<T extends { pin: string }>(
  ctx: CommandContext, input: NodeJS.ReadStream,
  show: (review: T) => void, question: (review: T) => string, withPin: (review: T) => string,
): { ask: (review: T) => Promise<boolean>; close: () => void } {
  const pinned = typeof ctx.options.pin === 'string';
  const questions = yesNoQuestions(input);
  return {
    ask: async (review) => {
      show(review);
      if (pinned) return true;
      if (input.isTTY === true) return questions.ask(`${question(review)} [y/N] `);
      if (!ctx.json) ctx.io.err(`dsh-bridge: no terminal to ask, so nothing was accepted: after reading the review above, run\n  ${withPin(review)}`);
      return false;
    },
    close: questions.close,
  };
}

/**
 * One reader for every question of a run: answers typed (or pasted) ahead are kept for the next
 * question instead of being swallowed by the first one's interface.
 */
export function yesNoQuestions(input: NodeJS.ReadStream) {
  let rl: readline.Interface | undefined;
  const typedAhead: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  let closed = false;
  const open = () => {
    if (rl) return rl;
    rl = readline.createInterface({ input, output: process.stderr, terminal: true });
    rl.on('line', (line) => (waiting.length ? waiting.shift()!(line) : typedAhead.push(line)));
    rl.on('close', () => {
      closed = true;
      for (const resolve of waiting.splice(0)) resolve('');
    });
    return rl;
  };
  return {
    async ask(prompt: string): Promise<boolean> {
      const r = open();
      r.setPrompt(prompt);
      r.prompt();
      const answer = typedAhead.length ? typedAhead.shift()! : closed ? '' : await new Promise<string>((resolve) => waiting.push(resolve));
      return /^y(es)?$/i.test(answer.trim());
    },
    close: () => rl?.close(),
  };
}

/**
 * The consent to a reviewed write (import, migrate): `--yes PREVIEW` must name the preview just
 * shown (else the files changed since the review); without it, on a terminal, y/N; without a
 * terminal nothing is written and the way to review first is said. Resolves `write` to go on, or
 * the exit code to stop with (what was printed is printed).
 */
export async function reviewedWriteConsent(options: {
  yes: string | undefined; preview: string; changedSince: string; question: string;
  ask: (question: string) => Promise<boolean | undefined>;
  print: (extra: Record<string, unknown>) => void; io: CommandContext['io']; json: boolean;
}): Promise<'write' | number> {
  const { yes, preview, print, io } = options;
  const refuse = (message: string) => {
    print({ written: false, error: message });
    io.err(`dsh-bridge: ${message}.`);
    return 1;
  };
  if (yes !== undefined) {
    return yes === preview ? 'write' : refuse(`--yes ${yes} does not match this preview (${preview}): ${options.changedSince} changed since it was reviewed; nothing was written`);
  }
  const answer = await options.ask(`${options.question} [y/N] `);
  if (answer === undefined) return refuse(`no terminal to ask: review with --dry-run, then pass --yes ${preview}; nothing was written`);
  if (answer) return 'write';
  print({ written: false });
  if (!options.json) io.out('Nothing was written.');
  return 0;
}
