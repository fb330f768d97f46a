import { strict as assert } from 'node:assert';
import { problemDocsPath, problemPageUrl } from '../../../../src/core/app/problemCatalog';

describe('problemCatalog: the page of a code', () => {
  it('links a problem code to its explanation in the editor\'s language: Simplified Chinese, else English', () => {
    assert.equal(problemDocsPath('zh-cn'), 'docs/problem-codes.zh-cn.md');
    assert.equal(problemDocsPath('zh-Hans'), 'docs/problem-codes.zh-cn.md');
    for (const language of ['en', 'zh-tw', 'de', '']) assert.equal(problemDocsPath(language), 'docs/problem-codes.md');
    const repo = 'https://github.com/dsh-bridge/dsh-bridge.git';
    assert.equal(problemPageUrl(repo, 'en', 'invalid-json'), 'https://github.com/dsh-bridge/dsh-bridge/blob/main/docs/problem-codes.md#invalid-json');
    assert.equal(problemPageUrl(repo, 'zh-cn', 'invalid-json'), 'https://github.com/dsh-bridge/dsh-bridge/blob/main/docs/problem-codes.zh-cn.md#invalid-json');
    assert.equal(problemPageUrl(`git+${repo}`, 'zh-SG', 'tool-new'), 'https://github.com/dsh-bridge/dsh-bridge/blob/main/docs/problem-codes.zh-cn.md#tool-new');
    // A code that is not a heading's anchor: the page's top.
    assert.equal(problemPageUrl(repo, 'en', 'a b#c'), 'https://github.com/dsh-bridge/dsh-bridge/blob/main/docs/problem-codes.md');
  });
});
