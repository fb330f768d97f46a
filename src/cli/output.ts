import * as path from 'node:path';
import type { Problem } from '../core/problems/problems';

/**
 * A file as a terminal shows it (`file` relative to `folder`, or absolute): relative to the current
 * directory when it is inside it, else absolute (`../../x/mcp.json` says less than the path).
 */
export function shownPath(folder: string, file: string, cwd = process.cwd()): string {
  const absolute = path.resolve(folder, file);
  const relative = path.relative(cwd, absolute);
  if (relative === '') return '.';
  const outside = relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative); // another drive
  return outside ? absolute : relative;
}

export function problemJson(p: Problem) {
  const out: Record<string, unknown> = { code: p.code, severity: p.severity, message: p.message, file: p.file, range: p.range };
  if (p.related) out.related = p.related;
  return out;
}
