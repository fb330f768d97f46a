import * as vscode from 'vscode';
import type { InputDefinition } from '../core/mcp/mcpModel';
import { visibleLine } from '../core/json/visibleText';
import { shownItem } from './visible';
import { l10n } from './l10nLookup';

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
      // The id and the description come from mcp.json: shown escaped (the default value is the value, as written).
      const value = await vscode.window.showInputBox({
        title: visibleLine(l10n.t('MCP input "{0}"{1}', definition.id, where)),
        prompt: visibleLine(definition.description),
        value: definition.default,
        password: definition.password === true,
        ignoreFocusOut: true,
      });
      return value === undefined ? undefined : { value };
    }
    case 'pickString': {
      const items = definition.options.map((o) => (typeof o === 'string' ? { label: o, value: o } : { label: o.label ?? o.value, value: o.value, description: o.label ? o.value : undefined }));
      return pick(items, definition.default, l10n.t('MCP input "{0}"{1}', definition.id, where), definition.description);
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

/** A single-choice quick pick whose active item is the default, as VS Code's own pickString. */
function pick(items: Array<vscode.QuickPickItem & { value: string }>, defaultValue: string | undefined, title: string, placeholder: string): Promise<PromptResult> {
  return new Promise((resolve) => {
    const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { value: string }>();
    qp.title = visibleLine(title);
    qp.placeholder = visibleLine(placeholder);
    qp.ignoreFocusOut = true;
    qp.items = items.map(shownItem);
    const initial = qp.items.find((i) => i.value === defaultValue);
    if (initial) qp.activeItems = [initial];
    let result: PromptResult;
    qp.onDidAccept(() => {
      const chosen = qp.selectedItems[0] ?? qp.activeItems[0];
      if (chosen) result = { value: chosen.value };
      qp.hide();
    });
    qp.onDidHide(() => {
      qp.dispose();
      resolve(result);
    });
    qp.show();
  });
}

export class InputCommandError extends Error {
  constructor(readonly inputId: string, readonly command: string) {
    super(`the command "${command}" of input "${inputId}" did not return a string`);
  }
}
