import { strict as assert } from 'node:assert';
import { PROBLEM_CATALOG } from '../../../../src/core/app/problemCatalog';

describe('the problem catalog', () => {
  it('problem codes are unique across areas', () => {
    const all = PROBLEM_CATALOG.flatMap((a) => Object.keys(a.codes));
    assert.equal(new Set(all).size, all.length);
  });
});
