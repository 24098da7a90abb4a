/**
 * The link target of a field instruction (`HYPERLINK "url"`, `HYPERLINK \l "bookmark"`),
 * or undefined for other fields. Inside instructions a backslash is escaped as `\\`.
 */
export function fieldLink(instruction: string): string | undefined {
  const m = /^\s*HYPERLINK\b(.*)$/is.exec(instruction);
  if (!m) return undefined;
  let url = '';
  let anchor = '';
  // Arguments: quoted or bare words; switches `\x` take the following argument.
  const args = m[1]!.matchAll(/\\([a-z])|"((?:[^"\\]|\\.)*)"?|(\S+)/gis);
  let pendingSwitch = '';
  for (const a of args) {
    if (a[1]) {
      const name = a[1].toLowerCase();
      // \h, \m and \n are flags; the others take an argument.
      pendingSwitch = 'hmn'.includes(name) ? '' : name;
      continue;
    }
    const value = (a[2] ?? a[3] ?? '').replace(/\\(.)/g, '$1');
    if (pendingSwitch === 'l') anchor = value;
    else if (!pendingSwitch && !url) url = value;
    pendingSwitch = '';
  }
  if (anchor) return `${url}#${anchor}`;
  return url || undefined;
}
