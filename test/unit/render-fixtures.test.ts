import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Root } from 'hast';
import { type MarkdownOptions, renderMarkdown } from '../../src/render/markdown.ts';
import { convert } from '../helpers/convert.ts';

/**
 * Golden pairs for the Markdown renderer, one folder per behaviour under test/fixtures/render
 * (the way hast-util-to-mdast tests itself):
 * - `input.html` goes the way an upload goes (test/helpers/convert.ts: parse, transform,
 *   render) with `onlyMainContent: false`, so that the fixture is about the renderer, not about
 *   which part of the page is kept; `options.json`, when present, adds parse options.
 * - `input.json` is a tree of Quire's document model (a hast root; a `dataTable` node gives its
 *   rows as an array), rendered as a document is (`source: 'document'`, inline images
 *   removed); `options.json`, when present, overrides those render options.
 * `expected.md` is the Markdown, with a final newline. QUIRE_UPDATE_FIXTURES=1 writes the
 * current output into expected files that are missing or differ: read each one before committing.
 */
const fixtures = path.resolve(import.meta.dirname, '../fixtures/render');
const update = process.env.QUIRE_UPDATE_FIXTURES === '1';

function readJson(file: string): any {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** A `dataTable` as JSON holds its rows; the model's node yields them on demand. */
function revive(tree: any): Root {
  for (const child of tree.children) {
    if (child.type !== 'dataTable') continue;
    const rows: string[][] = child.rows;
    child.rows = () => rows;
    child.rowCount = rows.length;
  }
  return tree as Root;
}

async function render(folder: string): Promise<string> {
  const file = (name: string) => path.join(folder, name);
  const options = fs.existsSync(file('options.json')) ? readJson(file('options.json')) : {};
  if (fs.existsSync(file('input.html'))) {
    const data = await convert(
      { bytes: fs.readFileSync(file('input.html')), filename: 'x.html' },
      { formats: ['markdown'], onlyMainContent: false, ...options },
    );
    return data.markdown!;
  }
  if (fs.existsSync(file('input.json'))) {
    const opts: MarkdownOptions = { source: 'document', removeBase64Images: true, ...options };
    return renderMarkdown(revive(readJson(file('input.json'))), opts);
  }
  throw new Error(`${folder} holds neither input.html nor input.json`);
}

const folders = fs
  .readdirSync(fixtures, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe('Markdown renderer fixtures (test/fixtures/render)', () => {
  it('finds the fixture folders', () => {
    // A moved or emptied folder must fail here, not pass with nothing run.
    assert.ok(folders.length >= 40, `only ${folders.length} fixture folders in ${fixtures}`);
  });

  for (const name of folders) {
    it(name, async () => {
      const folder = path.join(fixtures, name);
      const actual = `${await render(folder)}\n`;
      const expectedFile = path.join(folder, 'expected.md');
      const exists = fs.existsSync(expectedFile);
      if (update && (!exists || fs.readFileSync(expectedFile, 'utf8') !== actual)) {
        fs.writeFileSync(expectedFile, actual);
        return;
      }
      assert.ok(exists, `${name}/expected.md is missing (QUIRE_UPDATE_FIXTURES=1 writes it)`);
      const expected = fs.readFileSync(expectedFile, 'utf8');
      // Compared line by line, so that assert's message is a diff of lines however short the
      // Markdown is; re-thrown with the fixture's name in front.
      try {
        assert.deepEqual(actual.split('\n'), expected.split('\n'));
      } catch (error) {
        throw new assert.AssertionError({
          message: `${name}/expected.md differs from the rendered Markdown:\n${(error as Error).message}`,
        });
      }
    });
  }
});
