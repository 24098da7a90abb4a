import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { statedPdfPages } from '../../src/pipeline/pdf-page-count.ts';
import { pagesToRecognise } from '../helpers/pdf.ts';

describe("a PDF's stated page count, read before the document is opened", () => {
  it("reads the page tree's root /Count, whichever order its keys come in", () => {
    assert.equal(statedPdfPages(pagesToRecognise(7)), 7);
    const nested = Buffer.from(
      '<< /Count 3 /Type /Pages /Kids [4 0 R] >> << /Type/Pages /Kids [1 0 R 2 0 R] /Count 12 >>',
    );
    assert.equal(statedPdfPages(nested), 12);
  });

  it('says nothing for a tree out of sight, a file that is no PDF, or matches with no dictionary', () => {
    assert.equal(statedPdfPages(Buffer.from('%PDF-1.7 compressed objects only')), undefined);
    assert.equal(statedPdfPages(Buffer.from('/Type /Pages /Count 5 '.repeat(200_000))), undefined);
  });
});
