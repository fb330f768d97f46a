/** An error's message for a log line (a thrown non-Error as its string). */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
