import * as path from 'node:path';
import type { Problem } from '../core/problems/problems';

/** A problem's or server's file as a terminal shows it: relative to the current directory (a workspace file may be given absolute). */
export function shownPath(folder: string, file: string): string {
  return path.isAbsolute(file) ? path.relative(process.cwd(), file) || file : path.join(path.relative(process.cwd(), folder) || '.', file);
}

export function problemJson(p: Problem) {
  const out: Record<string, unknown> = { code: p.code, severity: p.severity, message: p.message, file: p.file, range: p.range };
  if (p.related) out.related = p.related;
  return out;
}
