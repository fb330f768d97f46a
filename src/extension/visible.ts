import * as vscode from 'vscode';
import { visibleLine, visibleText } from '../core/json/visibleText';

/**
 * The editor's seams for text from a file or a server: notifications and modal dialogs, quick
 * picks, tree items and the log show it with hidden characters escaped (core/json/visibleText).
 * A message is one line; a dialog's detail and a tooltip keep their line breaks, so their lines
 * are made visible where they are formed. Shown text passes unchanged, so a text escaped
 * earlier is never escaped twice. A lint rule keeps the window's message and quick pick
 * functions to this module.
 */

type MessageRest = unknown[];

function shownRest(rest: MessageRest): never[] {
  const [first, ...items] = rest;
  const options = typeof first === 'object' && first !== null && !('title' in first)
    ? [{ ...(first as vscode.MessageOptions), ...((first as vscode.MessageOptions).detail === undefined ? {} : { detail: visibleText((first as vscode.MessageOptions).detail!) }) }]
    : first === undefined ? [] : [first];
  return [...options, ...items] as never[];
}

export function showInformation<T extends string>(message: string, ...items: T[]): Thenable<T | undefined>;
export function showInformation<T extends string>(message: string, options: vscode.MessageOptions, ...items: T[]): Thenable<T | undefined>;
export function showInformation(message: string, ...rest: MessageRest): Thenable<unknown> {
  return vscode.window.showInformationMessage(visibleLine(message), ...shownRest(rest));
}

export function showWarning<T extends string>(message: string, ...items: T[]): Thenable<T | undefined>;
export function showWarning<T extends string>(message: string, options: vscode.MessageOptions, ...items: T[]): Thenable<T | undefined>;
export function showWarning(message: string, ...rest: MessageRest): Thenable<unknown> {
  return vscode.window.showWarningMessage(visibleLine(message), ...shownRest(rest));
}

export function showError<T extends string>(message: string, ...items: T[]): Thenable<T | undefined>;
export function showError<T extends string>(message: string, options: vscode.MessageOptions, ...items: T[]): Thenable<T | undefined>;
export function showError(message: string, ...rest: MessageRest): Thenable<unknown> {
  return vscode.window.showErrorMessage(visibleLine(message), ...shownRest(rest));
}

/**
 * A modal question whose yes lets a flagged tool, skill or launch through. A modal focuses its
 * first answer that is not Cancel (Enter presses it), so the first answer is `safe` (keep it
 * withheld, do not start it): only a click on `yes`, or Tab to it, lets the thing through;
 * Escape is Cancel. Resolves to the answer chosen, undefined on Cancel or Escape.
 */
export async function askSafeFirst<T extends string>(severity: 'warning' | 'info', message: string, detail: string, safe: T, yes: T): Promise<T | undefined> {
  const show = severity === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  return show(visibleLine(message), { modal: true, detail: visibleText(detail) }, safe, yes);
}

/** A quick pick item as shown: label, description and detail on one line each, everything else as it was. */
export function shownItem<T extends vscode.QuickPickItem>(item: T): T {
  return {
    ...item,
    label: visibleLine(item.label),
    ...(item.description === undefined ? {} : { description: visibleLine(item.description) }),
    ...(item.detail === undefined ? {} : { detail: visibleLine(item.detail) }),
  };
}

/**
 * `window.showQuickPick` over items shown escaped (a title that quotes a file: escaped by the
 * caller); resolves to the items the caller gave (their labels may be ids).
 */
export function showQuickPick<T extends vscode.QuickPickItem>(items: readonly T[], options: vscode.QuickPickOptions & { canPickMany: true }): Promise<T[] | undefined>;
export function showQuickPick<T extends vscode.QuickPickItem>(items: readonly T[], options?: vscode.QuickPickOptions): Promise<T | undefined>;
export async function showQuickPick<T extends vscode.QuickPickItem>(items: readonly T[], options?: vscode.QuickPickOptions): Promise<T | T[] | undefined> {
  const shown = items.map(shownItem);
  const given = new Map<vscode.QuickPickItem, T>(shown.map((s, i) => [s, items[i]]));
  const picked: unknown = await vscode.window.showQuickPick(shown, options);
  if (picked === undefined) return undefined;
  return Array.isArray(picked) ? picked.map((p: T) => given.get(p) ?? p) : given.get(picked as T) ?? (picked as T);
}

/** A tree item as shown: a text label, the description and the accessibility label on one line, a text tooltip as lines. */
export function shownTreeItem<T extends vscode.TreeItem>(item: T): T {
  if (typeof item.label === 'string') item.label = visibleLine(item.label);
  if (typeof item.description === 'string') item.description = visibleLine(item.description);
  if (typeof item.tooltip === 'string') item.tooltip = visibleText(item.tooltip);
  if (item.accessibilityInformation) item.accessibilityInformation = { ...item.accessibilityInformation, label: visibleLine(item.accessibilityInformation.label) };
  return item;
}

const LOG_WRITES: ReadonlySet<PropertyKey> = new Set(['trace', 'debug', 'info', 'warn', 'error', 'append', 'appendLine', 'replace']);

function shownLogArgument(value: unknown): unknown {
  if (typeof value === 'string') return visibleLine(value);
  if (value instanceof Error) {
    const shown = new Error(visibleLine(value.message));
    shown.name = visibleLine(value.name);
    if (value.stack !== undefined) shown.stack = visibleText(value.stack);
    return shown;
  }
  return value;
}

/** The log channel as the extension writes to it: each entry on one line, errors' messages and stacks escaped. */
export function visibleLog(channel: vscode.LogOutputChannel): vscode.LogOutputChannel {
  return new Proxy(channel, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (!LOG_WRITES.has(property)) return value.bind(target);
      return (...args: unknown[]) => (value as (...a: unknown[]) => unknown).apply(target, args.map(shownLogArgument));
    },
  });
}
