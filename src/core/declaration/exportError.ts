/**
 * An export refused for a reason the user can act on (a `.dsh` that leaves the workspace, a
 * folder in the way, invalid export options): nothing was written. Thrown by the export use case
 * and the Node adapter that writes `.dsh`; every face catches this one class.
 */
export class ExportError extends Error {}
