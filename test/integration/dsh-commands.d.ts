// The extension's own commands answer with plain objects (see src/extension/commands.ts); the
// suites read them as such and check every field they use with assert. VS Code's code-action
// command answers with code actions.
import 'vscode';

declare module 'vscode' {
  export namespace commands {
    export function executeCommand(command: `dsh.${string}`, ...rest: unknown[]): Thenable<any>;
    export function executeCommand(command: 'vscode.executeCodeActionProvider', ...rest: unknown[]): Thenable<CodeAction[] | undefined>;
  }
}
