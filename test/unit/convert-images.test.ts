import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { convert } from '../helpers/convert.ts';
import { hugePngHeader, imageFixture, plainPng } from '../helpers/images.ts';

/**
 * Image uploads OCR'd by the converter in this process (Tesseract runs as its own command). The
 * fixtures are crops of the corpus's scanned PDF `pdf/scanned/scan-doc-multi_page.pdf`
 * (test/fixtures/images/README.md says how each was made); the phrases are from that case's
 * reference Markdown.
 */
const FIRST = [
  'The concept of the word processor predates modern computers',
  'Patented in 1868 by Christopher Latham Sholes',
];
/**
 * From page 2 of the same document: the second frame of pages.tif and animated.gif. (Not from
 * its first line: on this crop the shared page layout takes "By the" for a column of its own,
 * as it does for the same crop wrapped in a scanned PDF.)
 */
const SECOND = 'word processing software had become more sophisticated';

/** Case-insensitive, whitespace-normalised: where `phrase` starts in `markdown`, or -1. */
function find(markdown: string, phrase: string): number {
  const flat = (text: string) => text.toLowerCase().replace(/\s+/g, ' ');
  return flat(markdown).indexOf(flat(phrase));
}

function assertSays(markdown: string, phrases: readonly string[]): void {
  for (const phrase of phrases)
    assert.ok(find(markdown, phrase) >= 0, `missing "${phrase}" in:\n${markdown}`);
}

describe('image conversion', () => {
  const dataOf = async (file: { bytes: Uint8Array; filename: string }): Promise<Record<string, any>> =>
    convert(file);

  for (const [name, contentType] of [
    ['scan.png', 'image/png'],
    ['scan.jpg', 'image/jpeg'],
    ['scan.webp', 'image/webp'],
    ['scan.bmp', 'image/bmp'],
  ] as const) {
    it(`reads a scanned page from ${name}`, async () => {
      const data = await dataOf(imageFixture(name));
      assert.equal(data.metadata.contentType, contentType);
      assert.equal(data.metadata.numPages, 1);
      assert.equal(data.warning, undefined);
      assertSays(data.markdown, FIRST);
      // The same layout as a scanned PDF page: the section title is a heading.
      assert.match(data.markdown, /^#+ Pre-Digital Era \(19th - Early 20th Century\)$/m);
    });
  }

  it('reads every page of a multi-page TIFF, in order', async () => {
    const data = await dataOf(imageFixture('pages.tif'));
    assert.equal(data.metadata.contentType, 'image/tiff');
    assert.equal(data.metadata.numPages, 2);
    const md: string = data.markdown;
    assertSays(md, [...FIRST, SECOND]);
    assert.ok(find(md, FIRST[1]!) < find(md, SECOND), 'page 1 comes before page 2');
  });

  it('reads only the first frame of an animated GIF, and says so', async () => {
    const data = await dataOf(imageFixture('animated.gif'));
    assert.equal(data.metadata.contentType, 'image/gif');
    assert.equal(data.metadata.numPages, 1);
    assertSays(data.markdown, FIRST);
    assert.equal(find(data.markdown, SECOND), -1);
    assert.match(data.warning, /animated: only the first of its 2 frames was read/);
  });

  it('flattens transparency on white (ink over transparent black)', async () => {
    const data = await dataOf(imageFixture('transparent.png'));
    assertSays(data.markdown, FIRST);
  });

  it('applies the EXIF orientation (a transposed JPEG, unreadable as stored)', async () => {
    const data = await dataOf(imageFixture('exif-oriented.jpg'));
    assertSays(data.markdown, FIRST);
  });

  it('answers a blank image with empty Markdown and a warning', async () => {
    const data = await dataOf({ bytes: plainPng(600, 400), filename: 'blank.png' });
    assert.equal(data.markdown, '');
    assert.equal(data.metadata.numPages, 1);
    assert.match(data.warning, /No text was recognized in the image\./);
  });

  it('refuses a truncated PNG as unparsable', async () => {
    const { bytes } = imageFixture('scan.png');
    await assert.rejects(convert({ bytes: bytes.subarray(0, bytes.length >> 1), filename: 'cut.png' }), {
      code: 'UNPARSABLE_DOCUMENT',
      message: /PNG image is damaged or truncated/,
    });
  });

  it('refuses a PNG whose header claims 100000 x 100000 pixels, before decoding it', async () => {
    await assert.rejects(convert({ bytes: hugePngHeader(100_000, 100_000), filename: 'bomb.png' }), {
      code: 'RESOURCE_LIMIT',
      message: /100000 x 100000 pixels/,
    });
  });

  it('refuses a truncated BMP as unparsable', async () => {
    const { bytes } = imageFixture('scan.bmp');
    await assert.rejects(convert({ bytes: bytes.subarray(0, bytes.length >> 1), filename: 'cut.bmp' }), {
      code: 'UNPARSABLE_DOCUMENT',
      message: /BMP image is truncated/,
    });
  });
});
