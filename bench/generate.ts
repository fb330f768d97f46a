/** A realistic mcp.json of `count` servers: two thirds stdio (npx, variables, inputs, env), one third http. */
export function generate(count: number): string {
  const servers: string[] = [];
  for (let i = 0; i < count; i++) {
    if (i % 3 === 2) {
      servers.push(`    // remote ${i}\n    "remote server ${i}": {\n      "type": "http",\n      "url": "https://mcp${i}.example.com/v1/mcp",\n      "headers": { "Authorization": "Bearer \${input:token}", "X-Client": "bench-${i}" },\n    }`);
    } else {
      servers.push(`    // stdio ${i}\n    "stdio-${i}": {\n      "command": "npx",\n      "args": ["-y", "@modelcontextprotocol/server-filesystem@2025.1.${i}", "\${workspaceFolder}/data/${i}", "--verbose"],\n      "env": { "API_TOKEN": "\${input:token}", "PORT": ${3000 + i}, "MODE": "bench", "PATH": "\${env:PATH}" },\n      "cwd": "tools/${i}",\n    }`);
    }
  }
  return `// generated\n{\n  "inputs": [{ "type": "promptString", "id": "token", "description": "API token", "password": true }],\n  "servers": {\n${servers.join(',\n')},\n  },\n}\n`;
}
