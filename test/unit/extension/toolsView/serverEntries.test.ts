import { strict as assert } from 'node:assert';
import { serverEntries } from '../../../../src/extension/toolsView/serverEntries';

describe('the MCP servers view: where the entries are', () => {
  it('names with spaces and comments, CRLF, key ranges for "open entry"', () => {
    const text = '{\r\n  // two servers\r\n  "servers": {\r\n    "my files": { "command": "node", "args": ["s.js"] },\r\n    "events": { "type": "sse", "url": "https://example.com/sse" },\r\n  }\r\n}\r\n';
    const entries = serverEntries(text);
    assert.deepEqual(entries.map((e) => [e.name, e.range.start.line, e.range.start.character, e.range.end.character]), [['my files', 3, 4, 14], ['events', 4, 4, 12]]);
    assert.deepEqual(serverEntries('{ "servers": '), []);
  });
});
