import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findEmails } from '../../src/transform/pii/detectors/email.ts';
import { loadEngine } from '../../src/transform/pii/engine.ts';
import { findPii, type NameFinder } from '../../src/transform/pii/find-pii.ts';
import { showPlaceholders } from '../../src/transform/pii/placeholders.ts';
import { applySpans, type Piece, replacement } from '../../src/transform/pii/replace.ts';
import { piiSettings } from '../../src/transform/pii/settings.ts';
import {
  type Candidate,
  chooseSpans,
  matchCandidates,
  type PiiBucket,
} from '../../src/transform/pii/spans.ts';
import { seeded, shown } from '../helpers/pii.ts';

/**
 * The redaction engine (README, PII redaction): the modes and their detectors, overlaps settled
 * by evidence, the buckets asked for, spans written back into the pieces of a document, and the
 * `<BUCKET>` placeholders shown as such in Markdown.
 */

/** The six buckets of the contract, as the README lists them. */
const everyBucket: readonly PiiBucket[] = ['PERSON', 'EMAIL', 'PHONE', 'LOCATION', 'FINANCIAL', 'SECRET'];
const all = new Set(everyBucket);
const rand = seeded(91);

/** One text with something of each kind, made for each run of the test from generated parts. */
function sample() {
  const local = rand.from('abcdefghijklmnopqrstuvwxyz', 6);
  const email = `${local}@example.org`;
  const phone = `020 7946 0${rand.digits(3)}`;
  const text = `Dr. Rosalind Pemberton (${email}, ${phone}) moved to Aberdeen.`;
  return { text, email, phone };
}

describe('spans: overlaps settled by evidence', () => {
  const c = (start: number, end: number, bucket: PiiBucket, rank: number): Candidate => ({
    start,
    end,
    bucket,
    rank,
  });

  it('keeps the stronger evidence, then the longer span, then the earlier one', () => {
    assert.deepEqual(chooseSpans([c(0, 10, 'PERSON', 7), c(5, 8, 'SECRET', 0)]), [
      { start: 5, end: 8, bucket: 'SECRET' },
    ]);
    assert.deepEqual(chooseSpans([c(0, 4, 'PERSON', 7), c(2, 9, 'LOCATION', 7)]), [
      { start: 2, end: 9, bucket: 'LOCATION' },
    ]);
    assert.deepEqual(chooseSpans([c(3, 6, 'PHONE', 3), c(0, 3, 'EMAIL', 2), c(1, 4, 'EMAIL', 2)]), [
      { start: 0, end: 3, bucket: 'EMAIL' },
      { start: 3, end: 6, bucket: 'PHONE' },
    ]);
  });

  it('keeps neighbours that only touch, drops empty spans, and sorts by start', () => {
    assert.deepEqual(chooseSpans([c(6, 9, 'EMAIL', 2), c(0, 6, 'PHONE', 3), c(4, 4, 'SECRET', 0)]), [
      { start: 0, end: 6, bucket: 'PHONE' },
      { start: 6, end: 9, bucket: 'EMAIL' },
    ]);
    assert.deepEqual(chooseSpans([]), []);
  });

  it('turns every match of a global pattern into a candidate of one bucket and rank', () => {
    assert.deepEqual(matchCandidates('ab12cd345', /\d+/g, 'FINANCIAL', 1), [
      { start: 2, end: 4, bucket: 'FINANCIAL', rank: 1 },
      { start: 6, end: 9, bucket: 'FINANCIAL', rank: 1 },
    ]);
  });
});

describe('findPii: the detectors of a mode, for the buckets asked for', () => {
  it('runs the validated patterns alone in fast mode, whatever name finder is given', () => {
    const { text, email, phone } = sample();
    let called = 0;
    const finder: NameFinder = () => {
      called++;
      return [];
    };
    assert.deepEqual(shown(text, findPii(text, 'fast', all, finder)), [
      [email, 'EMAIL'],
      [phone, 'PHONE'],
    ]);
    assert.equal(called, 0);
  });

  it('asks the name finder only when people or places are asked for', () => {
    const seen: string[][] = [];
    const finder: NameFinder = (_text, buckets) => {
      seen.push([...buckets]);
      return [];
    };
    findPii('x', 'aggressive', new Set(['EMAIL', 'PHONE']), finder);
    findPii('x', 'aggressive', new Set(['LOCATION']), finder);
    assert.deepEqual(seen, [['LOCATION']]);
  });

  it('lets a bucket left out still block a wrong reading of the same characters', () => {
    // `!` may precede an address, so "t7x2@smtp.example.org" reads as one; the URL says it is the password.
    const pw = `${rand.from('abcdefgh', 4)}!t7x2`;
    const text = `relay: smtp://mailer:${pw}@smtp.example.org`;
    assert.deepEqual(
      shown(text, findEmails(text)),
      [['t7x2@smtp.example.org', 'EMAIL']],
      'the wrong reading exists',
    );
    assert.deepEqual(shown(text, findPii(text, 'fast', all)), [[pw, 'SECRET']]);
    assert.deepEqual(findPii(text, 'fast', new Set(['EMAIL'])), []);
  });
});

describe('loadEngine: the detectors each mode loads', () => {
  it('fast: patterns only', async () => {
    const engine = await loadEngine('fast');
    const { text, email, phone } = sample();
    assert.deepEqual(shown(text, engine(text, all)), [
      [email, 'EMAIL'],
      [phone, 'PHONE'],
    ]);
  });

  it('aggressive: patterns, people and places; accurate without a model runs the same', async () => {
    const { text, email, phone } = sample();
    const expected = [
      ['Rosalind Pemberton', 'PERSON'],
      [email, 'EMAIL'],
      [phone, 'PHONE'],
      ['Aberdeen', 'LOCATION'],
    ];
    assert.deepEqual(shown(text, (await loadEngine('aggressive'))(text, all)), expected);
    assert.deepEqual(shown(text, (await loadEngine('accurate'))(text, all)), expected);
    assert.deepEqual(
      shown(text, (await loadEngine('accurate', { stage: 'fallback', reason: 'timeout' }))(text, all)),
      expected,
    );
    assert.deepEqual(shown(text, (await loadEngine('aggressive'))(text, new Set(['PHONE']))), [
      [phone, 'PHONE'],
    ]);
  });

  it('aggressive: joins the parts of an address on one line, and a town with its country', async () => {
    const engine = await loadEngine('aggressive');
    const line = `Suite 4, ${10 + rand.int(80)} Harbour Street, Manly NSW 2095`;
    const text = `Office: ${line}\nLyon, France is next.`;
    assert.deepEqual(shown(text, engine(text, new Set(['LOCATION']))), [
      [line, 'LOCATION'],
      ['Lyon, France', 'LOCATION'],
    ]);
  });

  it("accurate with a model's findings: each whole-word occurrence, beside the patterns", async () => {
    const { text: base, email } = sample();
    const text = `${base} Talinor wrote; Talinorson did not. Talinor again.`;
    const engine = await loadEngine('accurate', {
      stage: 'apply',
      entities: [
        { text: 'Talinor', bucket: 'PERSON' },
        { text: 'Aberdeen', bucket: 'LOCATION' },
        // A model that names part of a validated pattern loses to it.
        { text: email.slice(0, 4), bucket: 'PERSON' },
        { text: 'not in the text', bucket: 'PERSON' },
      ],
      readChars: text.length,
      textChars: text.length,
    });
    assert.deepEqual(shown(text, engine(text, new Set(['PERSON', 'EMAIL', 'LOCATION']))), [
      [email, 'EMAIL'],
      ['Aberdeen', 'LOCATION'],
      ['Talinor', 'PERSON'],
      ['Talinor', 'PERSON'],
    ]);
    // Buckets not asked for are left, the model's as the patterns'.
    assert.deepEqual(shown(text, engine(text, new Set(['LOCATION']))), [['Aberdeen', 'LOCATION']]);
  });

  it('accurate past what the model read: the people and places of aggressive stand in', async () => {
    const { text } = sample();
    const engine = await loadEngine('accurate', {
      stage: 'apply',
      entities: [],
      readChars: 10,
      textChars: text.length,
    });
    assert.deepEqual(shown(text, engine(text, new Set(['PERSON', 'LOCATION']))), [
      ['Rosalind Pemberton', 'PERSON'],
      ['Aberdeen', 'LOCATION'],
    ]);
  });
});

describe('settings: what redactPII asks for', () => {
  it('true means accurate, every bucket, tag; an object says its own; false is off', () => {
    assert.deepEqual(piiSettings(true), { mode: 'accurate', buckets: new Set(everyBucket), style: 'tag' });
    assert.deepEqual(piiSettings({ mode: 'fast', entities: ['EMAIL'], replaceStyle: 'mask' }), {
      mode: 'fast',
      buckets: new Set(['EMAIL']),
      style: 'mask',
    });
    assert.deepEqual(
      piiSettings({ mode: 'aggressive', replaceStyle: 'remove' })?.buckets,
      new Set(everyBucket),
    );
    assert.equal(piiSettings(false), undefined);
  });
});

describe('replace: spans written back into the pieces of a document', () => {
  it('replaces a span by its tag, one * per character, or nothing', () => {
    assert.equal(replacement('ana@example.org', 'EMAIL', 'tag'), '<EMAIL>');
    assert.equal(replacement('José', 'PERSON', 'mask'), '****');
    assert.equal(replacement('🙂🙂', 'PERSON', 'mask'), '**');
    assert.equal(replacement('secret', 'SECRET', 'remove'), '');
  });

  /** Pieces as the tree gives them: text nodes, a separator between blocks, and what each became. */
  function pieces(texts: (string | null)[]) {
    const written = new Map<number, string>();
    const list: Piece[] = texts.map((text, i) =>
      text === null ? { text: '\n\n' } : { text, set: (v: string) => written.set(i, v) },
    );
    return { list, written };
  }

  it('writes a span over several pieces into each, the tag where the span starts', () => {
    // "Call " "Ana " "Ruiz" | "now, ana@x.io"; the person runs over two pieces (bold in the source).
    const texts = ['Call ', 'Ana ', 'Ruiz', null, 'now, ana@x.io'];
    const spans = [
      { start: 5, end: 13, bucket: 'PERSON' as const },
      { start: 20, end: 28, bucket: 'EMAIL' as const },
    ];
    const expected = {
      tag: [
        [1, '<PERSON>'],
        [2, ''],
        [4, 'now, <EMAIL>'],
      ],
      mask: [
        [1, '****'],
        [2, '****'],
        [4, 'now, ********'],
      ],
      remove: [
        [1, ''],
        [2, ''],
        [4, 'now, '],
      ],
    } as const;
    for (const style of ['tag', 'mask', 'remove'] as const) {
      const { list, written } = pieces(texts);
      applySpans(list, spans, style);
      // Pieces no span touches are never set; the separator has nothing to set.
      assert.deepEqual([...written], expected[style], style);
    }
  });

  it('writes several spans of one piece, in order', () => {
    const { list, written } = pieces(['a 1 b 22 c 333']);
    applySpans(
      list,
      [
        { start: 2, end: 3, bucket: 'PHONE' },
        { start: 6, end: 8, bucket: 'PHONE' },
        { start: 11, end: 14, bucket: 'FINANCIAL' },
      ],
      'tag',
    );
    assert.deepEqual([...written], [[0, 'a <PHONE> b <PHONE> c <FINANCIAL>']]);
  });
});

describe('placeholders in Markdown', () => {
  it('shows each bucket’s escaped placeholder as written, and nothing else', () => {
    for (const bucket of everyBucket) {
      assert.equal(showPlaceholders(`a &lt;${bucket}> b`), `a <${bucket}> b`);
      assert.equal(showPlaceholders(`![\\<${bucket}>](x.png)`), `![<${bucket}>](x.png)`);
    }
    for (const text of ['&lt;NAME>', '\\<email>', '&lt;EMAIL', '&lt;div>', '<EMAIL>'])
      assert.equal(showPlaceholders(text), text, text);
  });
});
