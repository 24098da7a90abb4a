/** Small string helpers shared by the OMML walker and the run converter. */

/** A lookup table without a prototype: keys come from file content, where `toString` must find nothing. */
export function table<T>(entries: Record<string, T>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, entries);
}

const LETTER = /[A-Za-z]/;
/** LaTeX command names are short; looking further back would make long letter runs quadratic. */
const COMMAND_LOOKBACK = 32;

/** True when `latex` ends with a control word such as `\pi`, which a following letter would extend. */
function endsWithControlWord(latex: string): boolean {
  const stop = Math.max(0, latex.length - COMMAND_LOOKBACK);
  let i = latex.length - 1;
  if (i < 0 || !LETTER.test(latex[i]!)) return false;
  while (i > stop && LETTER.test(latex[i - 1]!)) i--;
  return i > 0 && latex[i - 1] === '\\' && (i < 2 || latex[i - 2] !== '\\');
}

/** A command before a letter would swallow it; before a digit a space just reads better. */
function needsSpace(left: string, right: string): boolean {
  return /[A-Za-z0-9]/.test(right[0]!) && endsWithControlWord(left);
}

/** Concatenates two LaTeX pieces like `LatexBuilder` (for a few pieces; a loop wants the builder). */
export function cat(left: string, right: string): string {
  if (left === '' || right === '') return left + right;
  return needsSpace(left, right) ? `${left} ${right}` : left + right;
}

/**
 * Joins LaTeX pieces, inserting a space after a command followed by a letter or digit. Only the
 * last piece is inspected: reading the end of a long concatenated string would flatten it on
 * every append and make the walk quadratic.
 */
export class LatexBuilder {
  private parts: string[] = [];
  private last = '';

  add(piece: string): void {
    if (piece === '') return;
    if (this.last !== '' && needsSpace(this.last, piece)) this.parts.push(' ');
    this.parts.push(piece);
    this.last = piece;
  }

  toString(): string {
    return this.parts.join('');
  }
}

/** A base of a script or accent that needs no braces: one symbol, one command, one styled group. */
const ATOM =
  /^(?:[A-Za-z0-9]|\\[A-Za-z]+|\\[^A-Za-z\s]|[^\\{}^_\s&]|\\(?:math[a-z]+|boldsymbol|operatorname)\{[^{}]*\})$/u;

export function isAtom(latex: string): boolean {
  return ATOM.test(latex);
}

/** Whitespace runs collapse: math mode ignores them, and sources are full of indentation. */
export function tidy(latex: string): string {
  return latex.replace(/\s+/g, ' ').trim();
}
