import type { Element, ElementContent } from 'hast';
import { chooseAlternate } from '../package/alternate-content.ts';
import { child, descendant, isElement, type XmlElement } from '../package/xml.ts';
import type { DocxContext } from './context.ts';

/**
 * What a drawing contributes: images that sit in the line, floating (anchored) images shown as
 * blocks before their paragraph, text-box blocks that follow it.
 */
export interface GraphicsSink {
  inline: ElementContent[];
  before: ElementContent[];
  blocks: ElementContent[];
}

function img(src: string, alt: string): Element {
  return { type: 'element', tagName: 'img', properties: { src, alt }, children: [] };
}

/** A picture's description or title; its name ("Picture 3", "image1.png") only as a last resort. */
function altOf(el: XmlElement | undefined): string {
  return (el?.attrs.descr || el?.attrs.title || '').replace(/\s+/g, ' ').trim();
}

function nameOf(el: XmlElement | undefined): string {
  return (el?.attrs.name ?? '').trim();
}

/**
 * A DrawingML drawing (w:drawing): pictures, grouped pictures, text boxes and shapes.
 * Charts and SmartArt are not read (their data lives in other parts).
 */
export function drawing(el: XmlElement, ctx: DocxContext, sink: GraphicsSink): void {
  const docPr = descendant(el, 'wp:docPr');
  const alt = altOf(docPr) || nameOf(docPr);
  if (!child(el, 'wp:anchor')) {
    walk(el, ctx, sink, alt);
    return;
  }
  const images: ElementContent[] = [];
  walk(el, ctx, { inline: images, before: sink.before, blocks: sink.blocks }, alt);
  for (const image of images)
    sink.before.push({ type: 'element', tagName: 'p', properties: {}, children: [image] });
}

function walk(el: XmlElement, ctx: DocxContext, sink: GraphicsSink, alt: string): void {
  for (const c of el.children) {
    if (!isElement(c)) continue;
    switch (c.name) {
      case 'a:blip': {
        const embed = c.attrs['r:embed'];
        const link = c.attrs['r:link'];
        const src = (embed && ctx.image(embed, false)) || (link && ctx.image(link, true));
        if (src) sink.inline.push(img(src, alt));
        break;
      }
      case 'pic:pic': {
        const cNvPr = descendant(child(c, 'pic:nvPicPr') ?? c, 'pic:cNvPr');
        walk(c, ctx, sink, altOf(cNvPr) || alt || nameOf(cNvPr));
        break;
      }
      case 'w:txbxContent':
        sink.blocks.push(...ctx.blocks(c.children));
        break;
      case 'mc:AlternateContent': {
        const chosen = chooseAlternate(c);
        if (chosen) walk(chosen, ctx, sink, alt);
        break;
      }
      case 'v:imagedata': {
        const id = c.attrs['r:id'] ?? c.attrs['o:relid'];
        const href = c.attrs['r:href'];
        const src = (id && ctx.image(id, false)) || (href && ctx.image(href, true));
        if (src) sink.inline.push(img(src, alt || (c.attrs['o:title'] ?? '').trim()));
        break;
      }
      case 'c:chart':
      case 'wp:docPr':
        break;
      default:
        walk(c, ctx, sink, c.name.startsWith('v:') ? (c.attrs.alt ?? '').trim() || alt : alt);
    }
  }
}

/** Legacy VML (w:pict, w:object): image data and text boxes. */
export function vml(el: XmlElement, ctx: DocxContext, sink: GraphicsSink): void {
  walk(el, ctx, sink, '');
}
