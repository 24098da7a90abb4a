import { type Block, bottom, type Line, right } from './types.ts';

/** Blank space between lines, in ems of the smaller font, beyond which a new block starts. */
const MAX_LINE_GAP_EM = 0.75;
/** Font sizes further apart than this ratio never share a block (heading over body). */
const MAX_SIZE_RATIO = 1.2;

/**
 * Line fragments → blocks: a line joins the block above it when the vertical gap is a normal
 * line spacing, the font size matches, and the two overlap horizontally. Lines are visited
 * top to bottom; only blocks whose last line is close above stay candidates.
 */
export function buildBlocks(lines: readonly Line[]): Block[] {
  const sorted = [...lines].sort((a, b) => a.y - b.y || a.x - b.x);
  const blocks: Block[] = [];
  let open: Block[] = [];
  for (const line of sorted) {
    open = open.filter((b) => line.y - bottom(b) <= b.lines[b.lines.length - 1]!.fontSize * 2);
    let best: Block | undefined;
    let bestGap = Infinity;
    for (const block of open) {
      const last = block.lines[block.lines.length - 1]!;
      const size = Math.min(last.fontSize, line.fontSize);
      const ratio = Math.max(last.fontSize, line.fontSize) / size;
      const gap = line.y - bottom(last);
      if (ratio > MAX_SIZE_RATIO || gap > size * MAX_LINE_GAP_EM || gap < -size * 0.5) continue;
      const overlap = Math.min(right(line), right(block)) - Math.max(line.x, block.x);
      if (overlap <= 0) continue;
      // A line spanning several blocks side by side (a heading over columns) joins none.
      if (line.width > block.width * 1.6 && right(line) - right(block) > size * 3 && block.lines.length > 1)
        continue;
      if (gap < bestGap) {
        best = block;
        bestGap = gap;
      }
    }
    if (best) {
      addLine(best, line);
    } else {
      const block: Block = { lines: [line], x: line.x, y: line.y, width: line.width, height: line.height };
      blocks.push(block);
      open.push(block);
    }
  }
  return blocks;
}

function addLine(block: Block, line: Line): void {
  block.lines.push(line);
  const x = Math.min(block.x, line.x);
  const r = Math.max(right(block), right(line));
  const b = Math.max(bottom(block), bottom(line));
  block.x = x;
  block.width = r - x;
  block.height = b - block.y;
}
