import type { XmlElement } from '../package/xml.ts';
import { child, descendant } from '../package/xml.ts';
import type { OpenField } from './context.ts';

const HYPERLINK = /^\s*HYPERLINK\b(.*)$/is;
const ARG = /\\([a-z])(?:\s+(?:"([^"]*)"|(\S+)))?|"([^"]*)"|(\S+)/gi;

/** The target of a HYPERLINK field instruction (`HYPERLINK "url" \l "anchor"`), if it is one. */
export function fieldHref(instruction: string): string | undefined {
  const m = HYPERLINK.exec(instruction);
  if (!m) return undefined;
  let url = '';
  let anchor = '';
  for (const a of m[1]!.matchAll(ARG)) {
    if (a[1] !== undefined) {
      if (a[1].toLowerCase() === 'l') anchor = a[2] ?? a[3] ?? '';
    } else if (!url) url = a[4] ?? a[5] ?? '';
  }
  if (anchor) return `${url}#${anchor}`;
  return url || undefined;
}

/** A w:fldChar begin: a new field, noting a legacy form checkbox and its state. */
export function beginField(fldChar: XmlElement): OpenField {
  const box = descendant(fldChar, 'w:checkBox');
  let checkbox: boolean | undefined;
  if (box) {
    const state = child(box, 'w:checked') ?? child(box, 'w:default');
    const v = state?.attrs['w:val'];
    checkbox = state !== undefined && v !== '0' && v !== 'false';
  }
  return { instruction: '', inResult: false, href: undefined, checkbox };
}
