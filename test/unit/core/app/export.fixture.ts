// A folder with three servers (one refused) and its export, as the export and verify tests start from.
import * as path from 'node:path';
import { DECLARATION_PATH } from '../../../../src/core/declaration/declarationModel';
import { tempDir, workspace, exportFolder, testPorts } from '../../helpers';

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
  const ports = testPorts(dshHome);
  const result = await exportFolder(ports, folder);
  return { folder, dshHome, ports, result, file: path.join(folder, DECLARATION_PATH) };
}
