import { strict as assert } from 'node:assert';
import { stillLeftOut } from '../../../../src/core/app/toolChoiceSetting';

describe('toolChoiceSetting: dsh.tools over every layer', () => {
  it('says a tool the user allowed stays left out when another layer leaves it out', () => {
    const user = { level: 'user' as const, value: { a: { exclude: ['x'] } } };
    assert.equal(stillLeftOut([user, { level: 'folder', value: { a: { only: ['x', 'y'] } } }], 'a', 'x'), true);
    assert.equal(stillLeftOut([user], 'a', 'y'), false);
  });
});
