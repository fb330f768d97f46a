import { visibleLine } from '../core/json/visibleText';

/** Rows as aligned columns, two spaces apart; each cell is shown on one line (hidden characters escaped) before it is measured. */
export function table(rows: string[][]): string {
  const shown = rows.map((r) => r.map(visibleLine));
  const widths = shown[0].map((_, i) => Math.max(...shown.map((r) => r[i].length)));
  return shown.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ')).join('\n');
}
