/** How far the scan reads: size bounds of a definition and the caps that keep one scan linear and its output short. */

/**
 * Bounds for oversized definitions. The clean corpus (test/fixtures/poisoning/clean, real
 * servers from npm) tops out at a 2,781-character description, 1,575 characters of instructions
 * and 1,532 characters of input schema (JSON); the warnings sit 3 to 21 times above that, the errors
 * far beyond anything a server needs to say. A tool name follows the MCP specification's 128.
 */
export const SCAN_BOUNDS = {
  name: { large: 128 },
  description: { large: 8_192, oversized: 65_536 },
  inputSchema: { large: 32_768, oversized: 262_144, depth: 64 },
  instructions: { large: 16_384, oversized: 262_144 },
} as const;

/** At most this many findings of one code per definition: a flood of one kind shows its first ones. */
export const MAX_PER_CODE = 20;
export const EXCERPT_CONTEXT = 24;
export const EXCERPT_SPAN = 160;
export const MAX_EXCERPT = 240;
export const MAX_DECODED = 400;
/** A schema with more values than this is not read further (a cycle in an in-process object ends here too). */
export const MAX_SCHEMA_VALUES = 2_000_000;

/**
 * At most this many hits of one class in one text: a text that holds more is far beyond the
 * oversized bound (an error already), and its hits would cost memory, not findings.
 */
export const MAX_HITS = 50_000;
