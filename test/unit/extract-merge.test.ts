import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergePages } from '../../src/jobs/extract-merge.ts';
import { pageFormats, validateExtractBody } from '../../src/jobs/extract-request.ts';
import { limits } from '../../src/limits.ts';

/** An extract's pages merged into one value, with the pages each field came from; its request. */

const A = 'https://a.example/';
const B = 'https://b.example/';
const C = 'https://c.example/';

describe('merging the pages of an extract', () => {
  it('fills each field from the first page that states it, and cites every page that agrees', () => {
    const merged = mergePages([
      { url: A, value: { name: 'Harbour Tools', founded: null, address: { city: 'Brest' } } },
      { url: B, value: { name: 'Harbour Tools', founded: 1987, address: { city: 'Brest', zip: '29200' } } },
      { url: C, value: { name: 'Other Name', founded: 1990 } },
    ]);
    assert.deepEqual(merged.data, {
      name: 'Harbour Tools',
      founded: 1987,
      address: { city: 'Brest', zip: '29200' },
    });
    assert.deepEqual(merged.sources, {
      name: [A, B],
      'address.city': [A, B],
      founded: [B],
      'address.zip': [B],
    });
    // C disagreed on both fields it stated.
    assert.equal(merged.conflicts, 2);
  });

  it('joins lists without repeats, whatever the key order of their objects, each item cited', () => {
    const merged = mergePages([
      { url: A, value: { products: [{ name: 'kettle', price: 30 }, 'lantern'] } },
      { url: B, value: { products: ['lantern', { price: 30, name: 'kettle' }, 'rope', ''] } },
    ]);
    assert.deepEqual(merged.data, { products: [{ name: 'kettle', price: 30 }, 'lantern', 'rope'] });
    assert.deepEqual(merged.sources, {
      'products[0]': [A, B],
      'products[1]': [A, B],
      'products[2]': [B],
    });
    assert.equal(merged.conflicts, 0);
  });

  it('merges pages whose whole value is a list, or a plain value', () => {
    assert.deepEqual(
      mergePages([
        { url: A, value: [1, 2] },
        { url: B, value: [2, 3] },
      ]),
      { data: [1, 2, 3], sources: { '[0]': [A], '[1]': [A, B], '[2]': [B] }, conflicts: 0 },
    );
    assert.deepEqual(
      mergePages([
        { url: A, value: 'yes' },
        { url: B, value: 'yes' },
      ]),
      {
        data: 'yes',
        sources: { data: [A, B] },
        conflicts: 0,
      },
    );
  });

  it('answers null, citing nothing, when no page states anything', () => {
    assert.deepEqual(
      mergePages([
        { url: A, value: null },
        { url: B, value: { name: '', tags: [] } },
      ]),
      { data: null, sources: {}, conflicts: 0 },
    );
    assert.deepEqual(mergePages([]), { data: null, sources: {}, conflicts: 0 });
  });

  it('keeps a field named __proto__ as data', () => {
    const merged = mergePages([{ url: A, value: JSON.parse('{"__proto__": {"polluted": 1}}') }]);
    assert.deepEqual(Object.keys(merged.data as object), ['__proto__']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe("an extract's request", () => {
  const schema = { type: 'object', properties: { name: { type: 'string' } } };
  const refused = (body: unknown, pattern: RegExp) =>
    assert.throws(
      () => validateExtractBody(body),
      (error: Error & { status?: number }) => error.status === 400 && pattern.test(error.message),
    );

  it('keeps wildcards, lists invalid URLs, joins the system prompt to the prompt', () => {
    const request = validateExtractBody({
      urls: ['example.com/docs/*', 'https://example.com/a', 'ftp://nope', 'not a url'],
      prompt: 'Find the name.',
      systemPrompt: 'Be brief.',
      schema,
      showSources: true,
      limit: 3,
      origin: 'js-sdk@4.42.0',
    });
    assert.deepEqual(request.spec.urls, ['http://example.com/docs/*', 'https://example.com/a']);
    assert.deepEqual(request.invalidURLs, ['ftp://nope', 'not a url']);
    assert.equal(request.spec.prompt, 'Be brief.\n\nFind the name.');
    assert.equal(request.spec.map.limit, 3);
    assert.equal(request.spec.showSources, true);
    assert.deepEqual(pageFormats({ ...request.spec, reading: 'json' }), [
      { type: 'json', schema, prompt: 'Be brief.\n\nFind the name.' },
    ]);
    assert.deepEqual(pageFormats({ prompt: 'Who?', schema: undefined, reading: 'question' }), [
      { type: 'question', question: 'Who?' },
    ]);
  });

  it('refuses what it cannot do, naming the field and the reason', () => {
    refused({ prompt: 'Find pages about boats' }, /body\.urls is required: Quire has no web search/);
    refused({}, /Either 'urls' or 'prompt' must be provided/);
    refused({ urls: ['https://a.example/'] }, /body\.prompt or body\.schema is required/);
    refused(
      {
        urls: Array.from({ length: limits.extractMaxUrls + 1 }, (_, i) => `https://a.example/${i}`),
        prompt: 'x',
      },
      /Maximum of 10 URLs allowed per request while in beta/,
    );
    refused({ urls: ['https://a.example/'], prompt: 'x', enableWebSearch: true }, /body\.enableWebSearch/);
    refused({ urls: ['https://a.example/*'], prompt: 'x', limit: 1e9 }, /body\.limit must be at most 1000/);
    refused(
      { urls: ['https://a.example/'], prompt: 'x', webhook: 'https://hooks.example/' },
      /body\.webhook/,
    );
    refused({ urls: ['https://a.example/'], prompt: 'x', agent: { model: 'FIRE-1' } }, /body\.agent/);
    refused(
      { urls: ['https://a.example/'], schema: { type: 'nonsense' } },
      /body\.schema is not a valid JSON Schema/,
    );
    refused({ urls: ['https://a.example/'], prompt: 'x', colour: 'red' }, /unrecognized key "colour"/);
    refused(
      { urls: ['ftp://nope'], prompt: 'x', ignoreInvalidURLs: false },
      /body\.urls\[0\] must be an http or https URL/,
    );
    refused({ urls: ['ftp://nope'], prompt: 'x' }, /No valid URLs provided/);
    refused(
      { urls: ['https://a.example/'], prompt: 'x'.repeat(6000), systemPrompt: 'y'.repeat(6000) },
      /body\.systemPrompt and body\.prompt together must be at most 10000 characters/,
    );
    refused(
      { urls: ['https://a.example/'], prompt: 'x', scrapeOptions: { waitFor: 'soon' } },
      /body\.scrapeOptions\.waitFor/,
    );
  });
});
