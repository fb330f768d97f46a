import * as vscode from 'vscode';
import { l10nKey } from './l10nKey';

type Args = Array<string | number | boolean> | [Record<string, unknown>];

/** VS Code's placeholder pattern (format2 of vs/base/common/strings, which vscode.l10n.t uses). */
const PLACEHOLDER = /{([^}]+)}/g;

/**
 * The bundle as the .vsix ships it (scripts/package-vsix.mjs): the l10nKey of each English
 * message, concatenated, and the translations in the same order.
 */
interface ShippedBundle {
  keys: string;
  translations: string[];
}

/** The shipped bundle's translations by key, built once per bundle object (VS Code sets it once per session). */
const byKey = new WeakMap<object, Map<string, string>>();

function shippedTranslation(message: string): string | undefined {
  const bundle = vscode.l10n.bundle as Partial<ShippedBundle> | undefined;
  if (typeof bundle?.keys !== 'string' || !Array.isArray(bundle.translations)) return undefined;
  let translations = byKey.get(bundle);
  if (!translations) {
    translations = new Map();
    const width = l10nKey('').length; // every key has the same width
    bundle.translations.forEach((t, i) => translations!.set(bundle.keys!.slice(i * width, (i + 1) * width), t));
    byKey.set(bundle, translations);
  }
  return translations.get(l10nKey(message));
}

/**
 * vscode.l10n.t that also reads the bundle as the .vsix ships it (keyed by l10nKey, see there).
 * A message found under its key is filled as vscode.l10n.t fills one; anything else goes to
 * vscode.l10n.t itself (English, and the repository's bundles keyed by the English text). Every
 * message of the extension goes through here (a lint rule keeps vscode.l10n.t to this file).
 */
export const l10n = {
  t(message: string, ...args: Args): string {
    const shipped = shippedTranslation(message);
    if (shipped === undefined) return vscode.l10n.t(message, ...(args as Array<string | number | boolean>));
    // As vscode.l10n.t reads its arguments: one object of named values, or the values in order.
    const values = (typeof args[0] === 'object' ? args[0] : args) as Record<string, unknown>;
    return Object.keys(values).length === 0 ? shipped : shipped.replace(PLACEHOLDER, (whole, name: string) => String(values[name] ?? whole));
  },
};
