/** As problems/problems.ts's Severity (the scan sits below it and imports only json/). */
export type ScanSeverity = 'error' | 'warning' | 'info';

// The scan's code table lives apart from the scanner so that the code catalog (loaded when the
// extension activates) does not pull in the rules.

/**
 * What the scan of a tool definition, a server's `instructions` or a SKILL.md reports: codes,
 * severities and English templates (stable l10n keys; `{name}` filled from a finding's `args`).
 * An error withholds the tool or skill from DSH sessions until the user accepts that exact
 * definition; warnings and infos are shown only. docs/poisoning.md explains every rule with an
 * example.
 */
export const SCAN_CODES = {
  'hidden-tag-text': ['error', 'Text hidden in Unicode tag characters: "{decoded}".'],
  'hidden-variation-selectors': ['error', 'Data hidden in {count} variation selectors: "{decoded}".'],
  'hidden-invisible-run': ['error', '{count} invisible characters in a row: {shown}.'],
  'bidi-override': ['error', 'A bidi control ({shown}) reorders the text you see.'],
  'ansi-escape': ['error', 'A terminal escape sequence: {shown}.'],
  'hidden-characters': ['warning', 'Hidden characters: {shown}.'],
  'hidden-characters-in-name': ['error', 'Hidden characters in the tool name: {shown}. DSH makes each one "_", so the tool can pass for another.'],
  'lookalike-characters': ['warning', 'Spelt with look-alike characters: reads as "{reads}".'],
  'instruction-override': ['error', 'Tells the model to set aside its instructions: "{text}".'],
  'secrecy-request': ['error', 'Asks the model to keep something from you: "{text}".'],
  'role-tag': ['error', 'A tag of the chat\'s speakers poses as the system or the assistant: {text}.'],
  'instruction-tag': ['warning', 'A tag addressed to the model: {text}.'],
  'precondition-instruction': ['warning', 'Asks for another step before the tool: "{text}".'],
  'addressed-to-model': ['info', 'Addresses the model: "{text}".'],
  'other-server-tool': ['error', 'Names another server\'s tool: {tool}.'],
  'tool-hook': ['error', 'Sets rules for when {tool} is used.'],
  'sensitive-file': ['warning', 'Names a credential file: {text}.'],
  'home-path': ['warning', 'Names a path in your home folder: {text}.'],
  'read-sensitive-file': ['error', 'Tells the model to read a credential file: "{text}".'],
  'exfiltration': ['error', 'Tells the model to send secrets or file contents out: "{text}".'],
  'hidden-comment': ['error', 'A comment the page does not show, addressed to the model: "{text}".'],
  'pipe-to-shell': ['error', 'Pipes a download into a shell: "{text}".'],
  'decode-and-follow': ['error', 'Asks the model to decode text and follow it: "{text}".'],
  'large-definition': ['warning', '{size} characters, more than {limit}.'],
  'oversized-definition': ['error', '{size} characters, more than {limit}: too large to review.'],
  'deep-schema': ['error', 'Input schema {depth} levels deep, more than {limit}.'],
  'unscannable': ['error', 'Could not be read whole ({reason}).'],
} as const satisfies Record<string, readonly [ScanSeverity, string]>;

export type ScanCode = keyof typeof SCAN_CODES;
