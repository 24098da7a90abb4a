import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bm25 } from '../../src/enrich/query/bm25.ts';
import { answerFromSentences, highlightPassages, passages } from '../../src/enrich/query/offline.ts';

/** question and highlights without a model: BM25 over the page's sentences and passages. */
describe('BM25 ranking of a page for a query', () => {
  it('scores a passage for the query words it holds, rarer words more, longer passages less', () => {
    const [ferry, tides, both, none] = bm25(
      [
        'The ferry leaves at noon.',
        'Tides turn twice a day, and the tides decide when boats leave.',
        'The ferry timetable follows the tides.',
        'Nothing about the sea here.',
      ],
      'When does the ferry leave?',
    );
    assert.equal(none, 0);
    assert.ok(ferry! > 0 && tides! > 0 && both! > 0);
    // "ferry" is in two passages, "leave" in two: the short passage holding both wins.
    assert.ok(ferry! > tides! && ferry! > both!, `${ferry} ${tides} ${both}`);
    assert.deepEqual(bm25(['a page'], 'the of and'), [0], 'a query of function words matches nothing');
  });

  it('keeps a fenced code block whole as one passage, blank lines and all', () => {
    const markdown = '# Setup\n\nInstall it:\n\n```sh\nnpm install\n\nnpm start\n```\n\nThen open the page.';
    assert.deepEqual(passages(markdown), [
      '# Setup',
      'Install it:',
      '```sh\nnpm install\n\nnpm start\n```',
      'Then open the page.',
    ]);
  });

  it('answers with the best-matching sentences, at most three, in the page’s order', () => {
    const texts = [
      'The harbour opens at six. Boats may moor until ten at night.',
      'Mooring costs twelve euros a night. Showers are free.',
      'The café sells bread. Mooring for longer stays is cheaper. The office closes at five.',
    ];
    assert.equal(
      answerFromSentences(texts, 'How much does mooring cost a night?'),
      'Boats may moor until ten at night. Mooring costs twelve euros a night. Mooring for longer stays is cheaper.',
    );
    assert.equal(answerFromSentences(texts, 'Is there wifi?'), null);
  });

  it('highlights the best-matching passages verbatim, at most five, in the page’s order', () => {
    const markdown = [
      '# Fees',
      '| Stay | Price |\n|---|---|\n| Night | 12 € |',
      'Electricity is **included** in the price.',
      'Dogs are welcome.',
    ].join('\n\n');
    assert.equal(
      highlightPassages(markdown, 'price of a night'),
      '| Stay | Price |\n|---|---|\n| Night | 12 € |\n\nElectricity is **included** in the price.',
    );
    const many = Array.from({ length: 8 }, (_, i) => `Tide table ${i}.`).join('\n\n');
    assert.equal(highlightPassages(many, 'tide')?.split('\n\n').length, 5);
    assert.equal(highlightPassages(markdown, 'wifi password'), null);
  });
});
