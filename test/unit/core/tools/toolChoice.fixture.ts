import { settingRange } from '../../../../src/core/settings/settingsFile';
import { TOOLS_SETTING } from '../../../../src/core/tools/toolChoice';

/** A folder's and a user's dsh.tools with mistakes of every kind the check places and the fixes fix. */
export const FOLDER_SETTINGS = `{
  // tool choice with mistakes
  "editor.tabSize": 2,
  "dsh.tools": {
    "github": { "exclude": "delete_repository", "bogus": 1 },
    "fs": "read_file",
    "git": { "only": ["status", 3] },
  },
}
`;
export const USER_SETTINGS = '{ "dsh.tools": { "github": { "exclude": ["push", ""] } } }\n';

export const at = (text: string, p: (string | number)[], target: 'key' | 'value' = 'value') => settingRange(text, 'settings', [TOOLS_SETTING, ...p], target)!;
