import * as path from 'node:path';
import type { Problem } from '../core/problems/problems';

/** Columns padded to the widest cell; the last column is not padded. */
export function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ')).join('\n');
}

/** A problem's or server's file as a terminal shows it: relative to the current directory (a workspace file may be given absolute). */
export function shownPath(folder: string, file: string): string {
  return path.isAbsolute(file) ? path.relative(process.cwd(), file) || file : path.join(path.relative(process.cwd(), folder) || '.', file);
}

export function problemJson(p: Problem) {
  const out: Record<string, unknown> = { code: p.code, severity: p.severity, message: p.message, file: p.file, range: p.range };
  if (p.related) out.related = p.related;
  return out;
}
