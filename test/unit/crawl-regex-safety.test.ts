import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nestsRepeats } from '../../src/crawl/regex-safety.ts';

describe('nestsRepeats: patterns that could backtrack exponentially', () => {
  it('refuses a repeat inside a repeat, in groups, alternatives and lookarounds', () => {
    for (const p of ['^/(a+)+$', '(?:x*y)*', '^/(?:[a-z]+/)*end$', '(a|b+){2,}', '(?=(a+)+)b', '((ab)*)+'])
      assert.equal(nestsRepeats(p), true, p);
  });
  it('passes single repeats and optional parts, such as the params-preview reader writes', () => {
    for (const p of [
      '^/blog/.*',
      '^/pricing(?:/.*)?$',
      '^/docs/(v1|v2)/.*',
      '\\.pdf$',
      '^/a{2,5}/b+$',
      '(?:/x)?(?:/y)?',
    ])
      assert.equal(nestsRepeats(p), false, p);
  });
});
