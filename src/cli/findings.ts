import { formatMessage } from '../core/problems/problems';
import { findingTemplate } from '../core/app/scanFindings';
import type { ScanFinding } from '../core/scan/scan';
import { countOf } from '../core/problems/plural';
import { visibleLine } from '../core/json/visibleText';

/** Where a finding is: the field, and inside an input schema the path (a key: "key" after it). */
function findingPlace(f: ScanFinding): string {
  const field = f.field === 'inputSchema' ? 'input schema' : f.field;
  if (!f.path?.length) return field;
  const path = f.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('').replace(/^\./, '');
  return `${field} ${visibleLine(path)}${f.key ? ' (key)' : ''}`;
}

/**
 * A finding as the CLI prints it: severity, code, where, and the message; then the span made
 * visible, and what hidden characters decode to.
 */
export function findingLines(f: ScanFinding, indent: string): string[] {
  const lines = [`${indent}${f.severity.padEnd(7)} ${f.code} (${findingPlace(f)}): ${formatMessage(findingTemplate(f), f.args)}`];
  if (f.excerpt) lines.push(`${indent}        ${f.excerpt}`);
  if (f.decoded !== undefined && f.code === 'hidden-invisible-run') lines.push(`${indent}        decoded: ${visibleLine(f.decoded)}`);
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
