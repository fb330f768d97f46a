/**
 * Which stored input values a tool definition carries (issue 37): a server that puts an input's
 * value into a tool's name, description or input schema would have DSH send it to the model with
 * every request. Such a definition is withheld (`tool-carries-secret`), by the plan from the
 * probe's record and by the DSH plugin's tool gate from the live definition. Pure; never throws.
 */
import type { TemplateLookup } from '../declaration/template';
import { MIN_KNOWN } from './maskSecrets';

/** A stored input: its id (not secret, shown) and its value (never shown). */
export type StoredInput = readonly [id: string, value: string];

/** A definition as the server lists it (the gate's `parameters` is the schema). */
export interface CarrierDefinition {
  name: string;
  description?: string;
  schema?: unknown;
}

/** The most strings of one schema looked at: a schema is bounded by the probe's and DSH's message caps already. */
const MAX_STRINGS = 100_000;

/** The ids of the stored inputs whose value occurs in the definition (its keys included), sorted; empty when none. */
export function carriedInputs(definition: CarrierDefinition, inputs: readonly StoredInput[]): string[] {
  const looked = inputs.filter(([, value]) => typeof value === 'string' && value.length >= MIN_KNOWN);
  if (looked.length === 0) return [];
  const found = new Set<string>();
  const check = (text: string) => {
    for (const [id, value] of looked) if (!found.has(id) && text.includes(value)) found.add(id);
  };
  try {
    check(String(definition.name));
    check(String(definition.description ?? ''));
    // Iterative, each object once (a live schema is the server's JSON, but nothing is assumed of it).
    const stack: unknown[] = [definition.schema];
    const seen = new Set<object>();
    let strings = 0;
    while (stack.length && strings < MAX_STRINGS && found.size < looked.length) {
      const node = stack.pop();
      if (typeof node === 'string') {
        check(node);
        strings++;
      } else if (typeof node === 'object' && node !== null && !seen.has(node)) {
        seen.add(node);
        if (Array.isArray(node)) stack.push(...node);
        else for (const [key, value] of Object.entries(node)) {
          check(key);
          strings++;
          stack.push(value);
        }
      }
    }
  } catch {
    // A definition that cannot even be read is judged on what was read of it.
  }
  return [...found].sort();
}

/** The stored values of the inputs `servers` reference, looked up once (ids without a value left out). */
export function storedInputsOf(servers: ReadonlyArray<{ inputRefs?: readonly string[] }>, lookup: Pick<TemplateLookup, 'input'>): StoredInput[] {
  const out = new Map<string, string>();
  for (const server of servers) {
    for (const id of server.inputRefs ?? []) {
      if (out.has(id)) continue;
      const value = lookup.input(id);
      if (value !== undefined) out.set(id, value);
    }
  }
  return [...out];
}
