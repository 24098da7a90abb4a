import { child, type XmlElement } from '../package/xml.ts';

/** The run properties the converter shows: emphasis, scripts, monospace, hidden. */
export interface RunProps {
  bold?: boolean;
  italic?: boolean;
  strike?: boolean;
  vertAlign?: 'sup' | 'sub' | 'none';
  mono?: boolean;
  hidden?: boolean;
}

/** A font name that is fixed-width: such runs are code. */
const MONO_FONT =
  /mono|courier|consolas|console|menlo|monaco|inconsolata|fira code|source code|cascadia|andale|typewriter|\bocr/i;

/** `<w:b/>`, `<w:b w:val="1|true|on"/>` are on; `0|false|off` are off. */
function onOff(el: XmlElement | undefined): boolean | undefined {
  if (!el) return undefined;
  const v = el.attrs['w:val'];
  return v === undefined || !(v === '0' || v === 'false' || v === 'off' || v === 'none');
}

/** Reads the shown properties of one `w:rPr`. */
export function readRunProps(rPr: XmlElement | undefined): RunProps {
  const props: RunProps = {};
  if (!rPr) return props;
  const bold = onOff(child(rPr, 'w:b'));
  if (bold !== undefined) props.bold = bold;
  const italic = onOff(child(rPr, 'w:i'));
  if (italic !== undefined) props.italic = italic;
  const strike = onOff(child(rPr, 'w:strike')) ?? onOff(child(rPr, 'w:dstrike'));
  if (strike !== undefined) props.strike = strike;
  const hidden = onOff(child(rPr, 'w:vanish'));
  if (hidden !== undefined) props.hidden = hidden;
  const vert = child(rPr, 'w:vertAlign')?.attrs['w:val'];
  if (vert === 'superscript') props.vertAlign = 'sup';
  else if (vert === 'subscript') props.vertAlign = 'sub';
  else if (vert === 'baseline') props.vertAlign = 'none';
  const fonts = child(rPr, 'w:rFonts');
  const font = fonts?.attrs['w:ascii'] ?? fonts?.attrs['w:hAnsi'];
  if (font !== undefined) props.mono = MONO_FONT.test(font);
  return props;
}

/**
 * Later properties override earlier ones. Word's toggle semantics (bold in a style and again
 * in a character style cancel out) are not modelled: documents rarely rely on them, and
 * override is what a reader expects to see.
 */
export function mergeRunProps(base: RunProps, over: RunProps): RunProps {
  return { ...base, ...over };
}
