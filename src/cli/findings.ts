import { formatMessage } from '../core/problems/problems';
import { findingPlace, findingText } from '../core/app/scanFindings';
import type { ScanFinding } from '../core/scan/scan';
import { countOf } from '../core/problems/plural';

/**
 * A finding as the CLI prints it: severity, code, where, and the message; then what hidden
 * characters decode to, before the span made visible (a reader meets the words, not the escapes).
 */
export function findingLines(f: ScanFinding, indent: string): string[] {
  const t = findingText(f);
  const lines = [`${indent}${t.severity.padEnd(7)} ${t.code} (${findingPlace(t)}): ${formatMessage(t.template, t.args)}`];
  if (t.decoded !== undefined) lines.push(`${indent}        decoded: ${t.decoded}`);
  if (t.excerpt) lines.push(`${indent}        ${t.excerpt}`);
  return lines;
}

/** "2 errors, 1 warning" */
export function findingCounts(findings: readonly ScanFinding[]): string {
  const n = (severity: ScanFinding['severity']) => findings.filter((f) => f.severity === severity).length;
  return [
    n('error') ? countOf(n('error'), 'error') : '',
    n('warning') ? countOf(n('warning'), 'warning') : '',
    n('info') ? countOf(n('info'), 'note') : '',
  ].filter(Boolean).join(', ');
}
