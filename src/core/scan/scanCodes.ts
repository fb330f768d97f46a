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
  'hidden-tag-text': ['error', 'Hidden text in Unicode tag characters, invisible to you and read by the model: "{decoded}".'],
  'hidden-variation-selectors': ['error', 'Hidden data in a run of {count} variation selectors, invisible to you and read by the model: "{decoded}".'],
  'hidden-invisible-run': ['error', 'A run of {count} invisible characters: {shown}.'],
  'bidi-override': ['error', 'A bidirectional control ({shown}) makes this text read differently from what the model receives.'],
  'ansi-escape': ['error', 'A terminal escape sequence ({shown}) can hide or repaint text where it is shown.'],
  'hidden-characters': ['warning', 'Hidden characters: {shown}.'],
  'instruction-override': ['error', 'Tells the model to set aside its instructions: "{text}".'],
  'secrecy-request': ['error', 'Asks the model to keep something from you: "{text}".'],
  'instruction-tag': ['warning', 'A tag that addresses the model ({text}), as hidden instructions do.'],
  'precondition-instruction': ['warning', 'Tells the model to do something else before using the tool: "{text}".'],
  'addressed-to-model': ['info', 'Addresses the model directly: "{text}".'],
  'other-server-tool': ['error', 'Names a tool of another server ({tool}): a definition that steers other servers\' tools.'],
  'tool-hook': ['error', 'Gives rules for when another tool ({tool}) is used.'],
  'sensitive-file': ['warning', 'Names a credential file: {text}.'],
  'home-path': ['warning', 'Names a path in your home folder: {text}.'],
  'read-sensitive-file': ['error', 'Tells the model to read a credential file: "{text}".'],
  'exfiltration': ['error', 'Tells the model to put secrets or file contents where they leave: "{text}".'],
  'large-definition': ['warning', '{size} characters, more than {limit}: far longer than servers usually send.'],
  'oversized-definition': ['error', '{size} characters, more than {limit}: too large to review, and sent with every request.'],
  'deep-schema': ['error', 'The input schema nests {depth} levels deep, more than {limit}.'],
  'unscannable': ['error', 'The definition could not be read whole ({reason}).'],
} as const satisfies Record<string, readonly [ScanSeverity, string]>;

export type ScanCode = keyof typeof SCAN_CODES;
