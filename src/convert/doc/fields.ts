/**
 * Field codes ([MS-DOC] 2.16.x, the instruction text between 0x13 and 0x14). Only the
 * HYPERLINK field changes the output: its result becomes a link.
 */

/** The field's words: quoted arguments unquoted, switches (`\l`) kept as words. */
function words(code: string): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(/"([^"]*)"?|(\S+)/g)) out.push(m[1] ?? m[2] ?? '');
  return out;
}

/** The link target of a HYPERLINK field code, or undefined for any other field. */
export function hyperlinkTarget(code: string): string | undefined {
  const [name, ...args] = words(code);
  if (name?.toUpperCase() !== 'HYPERLINK') return undefined;
  let url = '';
  let anchor = '';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const sw = /^\\([a-z])$/i.exec(arg)?.[1]?.toLowerCase();
    if (sw === 'l') anchor = args[++i] ?? '';
    else if (sw === 'o' || sw === 't') i++;
    else if (!sw && !url) url = arg;
  }
  const href = url.trim() + (anchor.trim() ? `#${anchor.trim()}` : '');
  return href || undefined;
}
