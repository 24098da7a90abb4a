/**
 * How deeply a JSON text nests arrays and objects, found by one scan of its characters before
 * it is parsed: `JSON.parse` of a 9 MB body nested 4.9 million deep held the event loop 1.35 s.
 * Stops counting, and answers `max + 1`, as soon as `max` is passed.
 */
export function jsonDepth(text: string, max: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > max) return deepest;
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}
