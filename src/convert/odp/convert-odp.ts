import type { Element, ElementContent, Root } from 'hast';
import { ConversionError, type Converter } from '../converter.ts';
import { FrameContent } from '../odf/frames.ts';
import { readOdfMeta } from '../odf/meta.ts';
import { openOdf } from '../odf/package.ts';
import { OdfStyles } from '../odf/styles.ts';
import { child, childrenNamed, isElement, XmlBudget, type XmlElement } from '../package/xml.ts';
import { PageWalker } from './page.ts';

/**
 * OpenDocument Presentation (.odp, and flat .fodp) → document, page by page in draw:page
 * order, shaped like the PPTX output: a `<!-- Slide number: N -->` comment, the title as an
 * h2, the page's shapes in reading order, then its speaker notes under a "Notes:" label.
 * Hidden pages (presentation:visibility="hidden") are converted and marked hidden, as in PPTX.
 */

/** Names of the drawing-page styles that hide a page from the slide show. */
function hiddenPageStyles(content: XmlElement): Set<string> {
  const names = new Set<string>();
  for (const auto of childrenNamed(content, 'office:automatic-styles')) {
    for (const style of childrenNamed(auto, 'style:style')) {
      const props = child(style, 'style:drawing-page-properties');
      const name = style.attrs['style:name'];
      if (name && props?.attrs['presentation:visibility'] === 'hidden') names.add(name);
    }
  }
  return names;
}

function el(tagName: string, children: ElementContent[]): Element {
  return { type: 'element', tagName, properties: {}, children };
}

export const convertOdp: Converter = (input) => {
  const budget = new XmlBudget();
  const pkg = openOdf(input.bytes, budget);
  const body = child(pkg.content, 'office:body');
  const presentation = body && (child(body, 'office:presentation') ?? body.children.find(isElement));
  if (!presentation)
    throw new ConversionError('UNPARSABLE_DOCUMENT', 'The OpenDocument file has no presentation body.');
  const warnings = [...pkg.warnings];
  const styles = new OdfStyles(pkg.content, pkg.styles);
  const walker = new PageWalker(styles, new FrameContent(pkg.zip, budget, warnings), warnings);

  const hidden = hiddenPageStyles(pkg.content);
  const tree: Root = { type: 'root', children: [] };
  childrenNamed(presentation, 'draw:page').forEach((page, i) => {
    const isHidden = hidden.has(page.attrs['draw:style-name'] ?? '');
    tree.children.push({ type: 'comment', value: ` Slide number: ${i + 1}${isHidden ? ' (hidden)' : ''} ` });
    const { title, blocks, notes } = walker.page(page);
    if (title) tree.children.push(el('h2', [{ type: 'text', value: title }]));
    for (const b of blocks) tree.children.push(b);
    if (notes.length > 0) {
      tree.children.push(el('p', [el('strong', [{ type: 'text', value: 'Notes:' }])]));
      for (const b of notes) tree.children.push(b);
    }
  });

  return {
    kind: 'document',
    tree,
    metadata: readOdfMeta(pkg.meta),
    contentType: 'application/vnd.oasis.opendocument.presentation',
    baseUrl: input.url,
    warnings,
  };
};
