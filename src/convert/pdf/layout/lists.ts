/** A list marker at the start of a line: bullet glyphs, or numbers/letters with "." ")" "(…)". */
export interface ListMarker {
  ordered: boolean;
  /** The item number for ordered lists (letters count a=1); undefined for roman numerals. */
  value?: number;
  /** Length of the marker and the space after it, to strip from the text. */
  length: number;
}

const BULLET = /^([•●○◦▪■□‣⁃►▸➢✓✔❖◆·]|[-–*](?=\s))\s*/u;
const NUMBERED = /^\(?(\d{1,3}|[a-z]|[ivx]{1,5})([.)])\s+(?=\S)/;
const PAREN = /^\((\d{1,3}|[a-z]|[ivx]{1,5})\)\s+(?=\S)/;

/** Whether `text` is a list marker and nothing else: a bullet or "3." set apart in a run of its own. */
export function isBareMarker(text: string): boolean {
  const marker = text.trim();
  // Markers are matched where an item's text follows them; give it one.
  return marker !== '' && listMarker(`${marker} x`)?.length === marker.length + 1;
}

export function listMarker(text: string): ListMarker | undefined {
  const bullet = BULLET.exec(text);
  if (bullet && text.length > bullet[0].length) return { ordered: false, length: bullet[0].length };
  const m = PAREN.exec(text) ?? NUMBERED.exec(text);
  if (!m) return undefined;
  const label = m[1]!;
  // "(a)" "a)" "a." are list labels; a capital "A." is more often an initial.
  let value: number | undefined;
  if (/^\d+$/.test(label)) value = Number(label);
  else if (/^[ivx]+$/.test(label) && label.length > 1) value = undefined;
  else value = label.charCodeAt(0) - 96;
  return { ordered: true, value, length: m[0].length };
}
