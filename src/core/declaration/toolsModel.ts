import * as z from 'zod/mini';

/**
 * The tools part of the declaration contract: a tool's pin and a server's tool choice as the
 * declaration signs them and the DSH plugin reads them. Pure; `core/tools` computes both.
 */

const sha256Pin = z.string().check(z.regex(/^sha256:[0-9a-f]{64}$/));

/** The pin of one tool: `definition` covers name, description and input schema together. */
export const ToolPinSchema = z.strictObject({
  definition: sha256Pin,
  description: sha256Pin,
  inputSchema: sha256Pin,
});
export type ToolPin = z.infer<typeof ToolPinSchema>;

/** The effective choice for one server: sorted, without duplicates. `only` absent: no allow-list. */
export const ToolChoiceSchema = z.strictObject({
  only: z.optional(z.array(z.string())),
  exclude: z.array(z.string()),
});
export type ToolChoice = z.infer<typeof ToolChoiceSchema>;

/** Whether a choice lets DSH offer the tool with this raw name (no choice: yes). */
export function toolAllowed(choice: ToolChoice | undefined, tool: string): boolean {
  if (!choice) return true;
  if (choice.only && !choice.only.includes(tool)) return false;
  return !choice.exclude.includes(tool);
}

/** Whether a choice can leave anything out (an empty `exclude` and no `only` cannot). */
export function choiceNarrows(choice: ToolChoice | undefined): choice is ToolChoice {
  return !!choice && (choice.only !== undefined || choice.exclude.length > 0);
}

/**
 * Whether `now` offers no tool that `then` did not (it only leaves more out, or is the same), over
 * the tools named in either choice or in `known` (the pinned or probed ones) and any other tool a
 * server may list (offered unless there is an `only` list). A narrowing may be applied without a
 * review; anything wider needs the export's review.
 */
export function choiceIsNarrowing(now: ToolChoice | undefined, then: ToolChoice | undefined, known: Iterable<string> = []): boolean {
  const named = new Set([...known, ...(now?.only ?? []), ...(now?.exclude ?? []), ...(then?.only ?? []), ...(then?.exclude ?? [])]);
  for (const tool of named) if (toolAllowed(now, tool) && !toolAllowed(then, tool)) return false;
  // A tool named nowhere: offered by a choice without `only`.
  return !(now?.only === undefined && then?.only !== undefined);
}
