import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonChanges, type ReadJson } from '../../src/changes/json-changes.ts';

/** changeTracking's json mode over a reader the test writes: which fields changed, and what a failed read says. */

/** Reads `Name: value` lines, as a stand-in for the json format. */
const byLines: ReadJson = async (markdown) => {
  const value: Record<string, string> = {};
  for (const [, name, v] of markdown.matchAll(/^(\w+): (.*)$/gm)) value[name!] = v!;
  return { value };
};
const schema = { type: 'object', properties: { fare: { type: 'string' }, route: { type: 'string' } } };

describe('json mode', () => {
  it('gives each top-level field that changed, before and after, fields that came or went as null', async () => {
    const { json, warning } = await jsonChanges(
      byLines,
      'route: Brest\nfare: 12\nold: yes',
      'route: Brest\nfare: 14\nnew: yes',
      { schema },
      false,
    );
    assert.deepEqual(json, {
      fare: { previous: '12', current: '14' },
      new: { previous: null, current: 'yes' },
      old: { previous: 'yes', current: null },
    });
    assert.equal(warning, undefined);
  });

  it('says why when a version gives no object, or when there is neither schema nor model', async () => {
    const nothing: ReadJson = async () => ({ value: null, warning: 'json: the page has no text.' });
    assert.deepEqual(await jsonChanges(nothing, 'a', 'b', { schema }, false), {
      json: null,
      warning: 'Structured diff generation failed: json: the page has no text.',
    });
    const bare = await jsonChanges(byLines, 'a', 'b', {}, false);
    assert.equal(bare.json, null);
    assert.match(bare.warning!, /^Structured diff generation failed: without a language model/);
  });

  it('asks the model once, over both versions, without a schema', async () => {
    const asked: { markdown: string; prompt?: string }[] = [];
    const model: ReadJson = async (markdown, spec) => {
      asked.push({ markdown, prompt: spec.prompt });
      return { value: { changed: 'the fare' } };
    };
    const { json } = await jsonChanges(model, 'fare: 12', 'fare: 14', { prompt: 'What changed?' }, true);
    assert.deepEqual(json, { changed: 'the fare' });
    assert.equal(asked.length, 1);
    assert.match(
      asked[0]!.markdown,
      /^Previous version of the page:\n\nfare: 12\n\nCurrent version of the page:\n\nfare: 14$/,
    );
    assert.equal(asked[0]!.prompt, 'What changed?');
  });
});
