import * as vscode from 'vscode';
import type { InputDefinition } from '../core/mcpModel';

/** `undefined`: the user cancelled. */
export type PromptResult = { value: string } | undefined;

/**
 * Asks for one input value as VS Code would: promptString in an input box (masked when the
 * definition says `password`), pickString in a quick pick, command inputs by running the
 * command (the caller has checked Workspace Trust). The value is returned, never logged.
 */
export async function promptForInput(definition: InputDefinition, folder: vscode.WorkspaceFolder, multiRoot: boolean): Promise<PromptResult> {
  const where = multiRoot ? ` (${folder.name})` : '';
  switch (definition.type) {
    case 'promptString': {
      const value = await vscode.window.showInputBox({
        title: vscode.l10n.t('MCP input "{0}"{1}', definition.id, where),
        prompt: definition.description,
        value: definition.default,
        password: definition.password === true,
        ignoreFocusOut: true,
      });
      return value === undefined ? undefined : { value };
    }
    case 'pickString': {
      const items = definition.options.map((o) => (typeof o === 'string' ? { label: o, value: o } : { label: o.label ?? o.value, value: o.value, description: o.label ? o.value : undefined }));
      const picked = await vscode.window.showQuickPick(
        items.map((i) => ({ ...i, picked: i.value === definition.default })),
        { title: vscode.l10n.t('MCP input "{0}"{1}', definition.id, where), placeHolder: definition.description, ignoreFocusOut: true },
      );
      return picked === undefined ? undefined : { value: picked.value };
    }
    case 'command': {
      const args = definition.args;
      const result: unknown = args === undefined
        ? await vscode.commands.executeCommand(definition.command)
        : await vscode.commands.executeCommand(definition.command, args);
      if (result === undefined || result === null) return undefined;
      if (typeof result !== 'string') throw new InputCommandError(definition.id, definition.command);
      return { value: result };
    }
  }
}

export class InputCommandError extends Error {
  constructor(readonly inputId: string, readonly command: string) {
    super(`the command "${command}" of input "${inputId}" did not return a string`);
  }
}
