import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Progress } from '../../src/cli/progress.ts';

/** `quire convert`'s progress display alone (the command itself is test/e2e/cli-convert.test.ts's). */
describe('progress', () => {
  const stream = (isTTY: boolean) => {
    const writes: string[] = [];
    return { writes, isTTY, columns: 80, write: (text: string) => writes.push(text) };
  };

  it('draws a bar of files and pages in place on a terminal, and ends with the summary line', () => {
    const terminal = stream(true);
    const progress = new Progress(terminal, 2);
    progress.converted(3);
    progress.note('quire: b.pdf: ENCRYPTED_DOCUMENT: …');
    progress.failed();
    const tally = progress.finish();
    assert.deepEqual({ ...tally, seconds: 0 }, { files: 2, converted: 1, failed: 1, pages: 3, seconds: 0 });
    // Each redraw goes back to the line's start and clears it (ESC [K), shown here as <clear>.
    const text = terminal.writes.join('').replaceAll('\r\u001b[K', '<clear>');
    assert.match(text, /^<clear>\[-+\] 0\/2 files, 0 pages, 0 s/);
    assert.match(text, /<clear>\[#+-+\] 1\/2 files, 3 pages, 0 s/);
    assert.match(text, /<clear>quire: b\.pdf: ENCRYPTED_DOCUMENT: …\n/);
    assert.match(text, /<clear>quire: 1\/2 files converted, 3 pages, [\d.]+ s, 1 failed\n$/);
  });

  it('writes only notes and the summary line elsewhere', () => {
    const pipe = stream(false);
    const progress = new Progress(pipe, 1);
    progress.converted(1);
    progress.finish();
    assert.equal(pipe.writes.length, 1);
    assert.match(pipe.writes[0]!, /^quire: 1\/1 files converted, 1 page, [\d.]+ s\n$/);
  });
});
