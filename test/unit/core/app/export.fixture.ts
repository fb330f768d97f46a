// A folder with three servers (one refused) and its export, as the export and verify tests start from.
import * as path from 'node:path';
import { exportFolder } from '../../../../src/core/app/export';
import { DECLARATION_PATH } from '../../../../src/core/declaration/declarationModel';
import { tempDir, workspace } from '../../helpers';

export const SOURCE = `// demo
{
  "inputs": [{ "type": "promptString", "id": "tok", "description": "API token", "password": true }],
  "servers": {
    "everything": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything@2026.1.26"], "env": { "API_TOKEN": "\${input:tok}" } },
    "remote": { "type": "http", "url": "https://x.dev/mcp", "headers": { "Authorization": "Bearer \${input:tok}" } },
    "old": { "type": "sse", "url": "https://x.dev/sse" },
  },
}
`;

export async function exported(source = SOURCE) {
  const folder = workspace(source);
  const dshHome = tempDir('dsh-home-');
  const opts = { folder, folderName: path.basename(folder), userHome: '/home/dev', dshHome };
  const result = await exportFolder(opts);
  return { folder, dshHome, opts, result, file: path.join(folder, DECLARATION_PATH) };
}
