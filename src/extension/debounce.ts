import type * as vscode from 'vscode';

/** Runs `task` once, `delayMs` after the last `schedule()`; errors go to `onError`. */
export class Debounced implements vscode.Disposable {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly task: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
    private readonly delayMs = 300,
  ) {}

  schedule(delay = this.delayMs): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.task().catch(this.onError);
    }, delay);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
