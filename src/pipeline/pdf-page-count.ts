/**
 * A PDF's page count as its page tree states it, read from the bytes without opening the
 * document: the largest `/Count` of a `/Type /Pages` dictionary (the root's is every page's).
 * Undefined when the tree is out of sight (inside compressed object streams, PDF 1.5 and later)
 * or the file is no PDF. A hint for holding credits before the pages are read, never a count a
 * conversion relies on.
 */
/** Characters either side of `/Type /Pages` that its dictionary is looked for in (a node's kids list included). */
const DICTIONARY_CHARS = 64 * 1024;

export function statedPdfPages(bytes: Uint8Array): number | undefined {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let most: number | undefined;
  for (const m of text.matchAll(/\/Type\s*\/Pages\b/g)) {
    // The dictionary around the match (/Count may come before /Type or after it), looked for
    // within a page-tree node's size only: a file of matches with no dictionary around them
    // must not make every match scan the whole file.
    const from = Math.max(0, m.index - DICTIONARY_CHARS);
    const near = text.slice(from, m.index + DICTIONARY_CHARS);
    const at = m.index - from;
    const start = near.lastIndexOf('<<', at);
    const end = near.indexOf('>>', at);
    if (start < 0 || end < 0) continue;
    const count = /\/Count\s+(\d+)/.exec(near.slice(start, end))?.[1];
    if (count !== undefined) most = Math.max(most ?? 0, Number(count));
  }
  return most;
}
