import type { ResolvedStyle } from '../odf/styles.ts';

export type ParagraphKind =
  | { kind: 'heading'; level: number }
  | { kind: 'title' }
  | { kind: 'code' }
  | { kind: 'quote' }
  | { kind: 'text' };

const CODE_STYLES = new Set([
  'preformatted text',
  'source text',
  'source code',
  'code',
  'html preformatted',
  'verbatim',
]);
const QUOTE_STYLES = new Set([
  'quotations',
  'quotation',
  'quote',
  'block quotation',
  'block text',
  'intense quote',
]);

/** Indentation past which a body paragraph reads as a quotation (LibreOffice's step is 0.5 cm+). */
const QUOTE_INDENT_CM = 0.3;

/**
 * What a paragraph is, from its style chain: a heading (an outline level, or a "Heading N"
 * style), the document title, code (preformatted styles), a quotation (quotation styles, or an
 * paragraph indented past `baseMarginCm`, the default paragraph style's margin, when `flow` says
 * it stands in the main text), or plain text.
 */
export function paragraphKind(
  style: ResolvedStyle | undefined,
  flow: boolean,
  baseMarginCm: number,
): ParagraphKind {
  if (!style) return { kind: 'text' };
  if (style.names.includes('title')) return { kind: 'title' };
  if (style.outlineLevel !== undefined) return { kind: 'heading', level: style.outlineLevel };
  for (const name of style.names) {
    const m = /^heading (\d{1,2})$/.exec(name);
    if (m) return { kind: 'heading', level: Number(m[1]) };
    if (CODE_STYLES.has(name)) return { kind: 'code' };
    if (QUOTE_STYLES.has(name)) return { kind: 'quote' };
  }
  // Indented past the body text, and not a hanging indent (a label in the margin).
  const indent = (style.marginLeftCm ?? 0) - baseMarginCm;
  if (flow && indent >= QUOTE_INDENT_CM && (style.textIndentCm ?? 0) > -indent / 2) return { kind: 'quote' };
  return { kind: 'text' };
}
