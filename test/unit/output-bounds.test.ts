import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { convert } from '../helpers/convert.ts';
import { R, wordPackage } from '../helpers/docx.ts';

const MiB = 1024 * 1024;

/**
 * A DOCX whose pictures are `pictures` (image1.png, ...) drawn in the order `placements` names
 * them: a picture placed many times is stored once in the package, as Word stores it.
 */
function pictureDocx(pictures: Uint8Array[], placements: number[]): Buffer {
  const drawing = (i: number) =>
    `<w:p><w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"><wp:docPr id="${i + 1}" name="Picture" descr="chart ${i}"/><a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData><pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:blipFill><a:blip r:embed="rIdImg${i}"/></pic:blipFill></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`;
  return wordPackage({
    body: placements.map(drawing).join(''),
    rels: pictures.map(
      (_, i) => `<Relationship Id="rIdImg${i}" Type="${R}/image" Target="media/image${i + 1}.png"/>`,
    ),
    parts: pictures.map((data, i) => ({ name: `word/media/image${i + 1}.png`, data })),
  });
}

/** A "PNG" of `bytes` bytes that compresses to almost nothing: its signature, then zeros and a mark. */
function bigPicture(bytes: number, mark: number): Uint8Array {
  const data = new Uint8Array(bytes);
  data.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  data[100] = mark;
  return data;
}

/**
 * Small uploads must not expand into huge answers (issue 14: output amplification): the
 * conversion pipeline in the test's process, whose answer budget refuses what passes it.
 */
describe('output bounds', () => {
  const page = (rows: string) => `<html><body><table>${rows}</table></body></html>`;

  it('a few kilobytes of colspan=1000 do not pad every row to a thousand columns', async () => {
    // One wide row over 5,000 one-cell rows: padded to the wide row, 95 KB made 10 MB.
    const html = page(
      `<tr>${'<td>a</td>'.repeat(5)}<td colspan=1000>w</td></tr>${'<tr><td>b</td></tr>'.repeat(5000)}`,
    );
    const md = (await convert({ bytes: html, filename: 'wide.html' })).markdown!;
    assert.ok(md.length < 4 * html.length, `${md.length} bytes of Markdown from ${html.length} of HTML`);
    // Every cell's text is still there, once.
    assert.equal(md.match(/\bb\b/g)?.length, 5000);
    assert.equal(md.match(/\bw\b/g)?.length, 1);
  });

  it('one very wide row over many short ones becomes flow, not a grid of empty cells', async () => {
    const html = page(`<tr>${'<td>a</td>'.repeat(10_000)}</tr>${'<tr><td>b</td></tr>'.repeat(10_000)}`);
    const md = (await convert({ bytes: html, filename: 'grid.html' })).markdown!;
    assert.ok(md.length < html.length, `${md.length} bytes of Markdown from ${html.length} of HTML`);
    assert.equal(md.match(/\ba\b/g)?.length, 10_000);
    assert.equal(md.match(/\bb\b/g)?.length, 10_000);
  });

  it('a real merged header still spans its columns', async () => {
    const html = page(
      '<tr><th colspan=3>Population</th></tr><tr><th>City</th><th>2010</th><th>2020</th></tr><tr><td>Oslo</td><td>586</td><td>697</td></tr>',
    );
    const { markdown } = await convert({ bytes: html, filename: 'merged.html' });
    assert.match(markdown!, /^\| Population \| Population \| Population \|$/m);
    assert.match(markdown!, /^\| Oslo \| 586 \| 697 \|$/m);
  });

  it('a picture placed forty times is carried once', async () => {
    // Upstream-sized case: an 8 MB picture (a few KB zipped) placed 40 times made 447 MB of HTML.
    const file = pictureDocx([bigPicture(8 * MiB, 1)], Array(40).fill(0));
    assert.ok(file.length < 100 * 1024, `${file.length} bytes uploaded`);
    const data = await convert(
      { bytes: file, filename: 'report.docx' },
      { formats: ['html', 'images', 'markdown'], removeBase64Images: false },
    );
    const html = data.html!;
    assert.equal(html.match(/src="data:image\/png;base64,/g)?.length, 1);
    assert.equal(html.match(/src="&#x3C;Base64-Image-Removed>"|src="<Base64-Image-Removed>"/g)?.length, 39);
    assert.equal(data.images!.length, 1);
    assert.equal(data.markdown!.match(/data:image\/png;base64,/g)?.length, 1);
    // Every placement keeps its alt text.
    assert.equal(data.markdown!.match(/!\[chart 0\]/g)?.length, 40);
  });

  it('an answer past its size limit is refused with RESOURCE_LIMIT naming each output', async () => {
    // Eight different 8 MB pictures: about 90 MB of Markdown and as much HTML with their bytes.
    const pictures = Array.from({ length: 8 }, (_, i) => bigPicture(8 * MiB, i + 1));
    const file = pictureDocx(
      pictures,
      pictures.map((_, i) => i),
    );
    await assert.rejects(
      convert(
        { bytes: file, filename: 'album.docx' },
        { formats: ['markdown', 'html'], removeBase64Images: false },
      ),
      (error: Error & { code?: string }) => {
        assert.equal(error.code, 'RESOURCE_LIMIT');
        assert.match(
          error.message,
          /^The answer would pass 160\.0 MB \(markdown \d+\.\d MB, html \d+\.\d MB\)/,
        );
        return true;
      },
    );
    // The same document in Markdown alone, its pictures as placeholders, is small.
    const small = await convert({ bytes: file, filename: 'album.docx' });
    assert.equal(small.markdown!.match(/<Base64-Image-Removed>/g)?.length, 8);
  });
});
