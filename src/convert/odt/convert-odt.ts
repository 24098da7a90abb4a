import type { Root } from 'hast';
import { ConversionError, type Converter } from '../converter.ts';
import { readOdfMeta } from '../odf/meta.ts';
import { openOdf } from '../odf/package.ts';
import { OdfStyles } from '../odf/styles.ts';
import { child, isElement, XmlBudget } from '../package/xml.ts';
import { OdtWalker } from './walker.ts';

/**
 * OpenDocument Text (.odt, and flat .fodt) → document. content.xml's `office:text` is walked
 * once, with styles from content.xml and styles.xml deciding what paragraphs are (headings,
 * title, code, quotations) and how lists number; properties come from meta.xml.
 */
export const convertOdt: Converter = (input) => {
  const budget = new XmlBudget();
  const pkg = openOdf(input.bytes, budget);
  const body = child(pkg.content, 'office:body');
  // A text document's body is office:text; anything else still shows what text it holds.
  const text = body && (child(body, 'office:text') ?? body.children.find(isElement));
  if (!text) throw new ConversionError('UNPARSABLE_DOCUMENT', 'The OpenDocument file has no document body.');
  const warnings = [...pkg.warnings];
  const walker = new OdtWalker({
    styles: new OdfStyles(pkg.content, pkg.styles),
    zip: pkg.zip,
    budget,
    warnings,
  });
  const tree: Root = { type: 'root', children: walker.document(text) };
  return {
    kind: 'document',
    tree,
    metadata: readOdfMeta(pkg.meta),
    contentType: 'application/vnd.oasis.opendocument.text',
    baseUrl: input.url,
    warnings,
  };
};
