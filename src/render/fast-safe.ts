import type { SafeConfig, State } from 'mdast-util-to-markdown';

/**
 * Values that `state.safe` would return unchanged, recognized by one regular expression instead
 * of the ~70 escape patterns `safe` tries on every string (the main cost of serializing a large
 * page). Each expression leaves out every character an escape pattern in that construct can
 * touch; whatever else comes through the usual path.
 *
 * - Text (innermost construct `phrasing` or `label`): none of the characters escaped anywhere
 *   in text; and, since the patterns that look around a character only see `before` and
 *   `after`, none of the line-start cases (a letter first after a line ending), no space
 *   next to a line ending, no `(` after `]`; `!` only where no `[` follows (an image would
 *   start), so only at the end of the value, against `after`.
 * - Link destination (`destinationRaw`): no whitespace, parentheses, brackets, angle
 *   brackets, backslashes, ampersands or pipes.
 * - Link title (`titleQuote`): no quotes, brackets, backslashes, ampersands, pipes, `#` or
 *   controls.
 */
const TEXT_CHARS = /^[^\\*_[\]`<>&|~#\p{Cc}]+$/u;
export const PLAIN_URL = /^[^\s()<>[\]\\&|\p{Cc}]*$/u;
const PLAIN_TITLE = /^[^"[\]\\&|#\p{Cc}]*$/u;

export function plainText(value: string, config: SafeConfig): boolean {
  if (!TEXT_CHARS.test(value)) return false;
  const before = config.before ?? '';
  const after = config.after ?? '';
  if (/[\r\n][\t ]*\d*$/.test(before) && !/^\p{L}/u.test(value)) return false;
  if (/\s$/.test(value) && /^[\r\n]/.test(after)) return false;
  if (value.charCodeAt(0) === 0x28 /* ( */ && before.endsWith(']')) return false;
  if (value.charCodeAt(value.length - 1) === 0x21 /* ! */ && after.startsWith('[')) return false;
  return true;
}

function plain(state: State, value: string, config: SafeConfig): boolean {
  const construct = state.stack[state.stack.length - 1];
  switch (construct) {
    case 'phrasing':
    case 'label':
      return plainText(value, config) && !state.stack.includes('autolink');
    case 'destinationRaw':
      return PLAIN_URL.test(value);
    case 'titleQuote':
      return PLAIN_TITLE.test(value);
    default:
      return false;
  }
}

/** Installs the fast path on a serializer state (once per `toMarkdown` call). */
export function installFastSafe(state: State): void {
  const safe = state.safe;
  if ((safe as { fast?: boolean }).fast) return;
  const fast = (value: string | null | undefined, config: SafeConfig): string =>
    value && plain(state, value, config) ? value : safe.call(state, value, config);
  (fast as { fast?: boolean }).fast = true;
  state.safe = fast;
}
