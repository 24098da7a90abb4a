import type { Root } from 'hast';
import { formats } from '../../detect/formats.ts';
import type { QuireDocument } from '../../document/model.ts';
import { ConversionError, type Converter } from '../converter.ts';
import { mimeOf } from '../package/image-mime.ts';
import { mainPart, readCoreProperties, readRelationships } from '../package/ooxml.ts';
import { child, isElement, parseXml, XmlBudget, type XmlElement } from '../package/xml.ts';
import { openZip } from '../package/zip.ts';
import { walkBlocks } from './blocks.ts';
import type { DocxContext } from './context.ts';
import { Notes } from './notes.ts';
import { readNumbering } from './numbering.ts';
import { readStyles, type Styles } from './styles.ts';

/**
 * DOCX / DOCM (WordprocessingML) → document model, by walking the package's XML directly.
 *
 * Read: the main document, styles (headings, quotes, code, inherited run formatting),
 * numbering (nested lists and their counters), footnotes and endnotes, relationships (links,
 * images), core properties. Not read, on purpose: page headers and footers (repeated page
 * furniture, which reference outputs such as docling's leave out of the body), comments (no
 * option asks for them), and VBA macros in DOCM files (never run, never looked at).
 */

const OLE_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0];

function contentTypeOf(format: string): string {
  return (
    formats.find((f) => f.id === format)?.mimeTypes[0] ?? formats.find((f) => f.id === 'docx')!.mimeTypes[0]!
  );
}

/** Does the body use a Title-styled paragraph? Then headings move one level below it. */
function usesTitle(body: XmlElement, styles: Styles): boolean {
  const stack: XmlElement[] = [body];
  while (stack.length > 0) {
    const el = stack.pop()!;
    for (const c of el.children) {
      if (!isElement(c)) continue;
      if (c.name === 'w:p') {
        const id = child(child(c, 'w:pPr') ?? c, 'w:pStyle')?.attrs['w:val'];
        if (id !== undefined && styles.paragraph(id).heading === 0) return true;
      } else if (c.name === 'w:sdt' || c.name === 'w:sdtContent' || c.name === 'w:customXml') stack.push(c);
    }
  }
  return false;
}

/**
 * styles.xml spends most of its bytes on w:latentStyles (hundreds of UI defaults for styles
 * the document never defines); cutting that block before parsing halves a small document's
 * conversion time.
 */
function withoutLatentStyles(xml: string): string {
  const start = xml.indexOf('<w:latentStyles');
  const endTag = '</w:latentStyles>';
  const end = start < 0 ? -1 : xml.indexOf(endTag, start);
  return end < 0 ? xml : xml.slice(0, start) + xml.slice(end + endTag.length);
}

export const convertDocx: Converter = (input) => {
  if (OLE_SIGNATURE.every((b, i) => input.bytes[i] === b)) {
    // Word stores password-protected DOCX files inside an OLE container, as an EncryptedPackage stream.
    const bytes = Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength);
    if (bytes.includes(Buffer.from('EncryptedPackage', 'utf16le'))) {
      throw new ConversionError(
        'ENCRYPTED_DOCUMENT',
        'The Word file is password-protected (encrypted); remove the password and retry.',
      );
    }
    throw new ConversionError(
      'UNPARSABLE_DOCUMENT',
      'The file is an OLE compound file (Word 97-2003?), not a DOCX package; upload it as .doc.',
    );
  }
  const zip = openZip(input.bytes);
  const budget = new XmlBudget();
  const warnings: string[] = [];
  const main = mainPart(zip, budget, 'word/document.xml');
  const doc = parseXml(zip.bytes(main)!, budget, { part: main, lenient: true });
  if (doc.damage) warnings.push(doc.damage);
  const body = child(doc.root, 'w:body');
  if (!body) throw new ConversionError('UNPARSABLE_DOCUMENT', `${main} has no document body (w:body).`);

  const rels = readRelationships(zip, main, budget);
  const partOf = (type: string): string | undefined => {
    for (const rel of rels.values())
      if (rel.type === type && !rel.external && zip.has(rel.target)) return rel.target;
    return undefined;
  };
  const parsePart = (type: string, trim?: (xml: string) => string): XmlElement | undefined => {
    const path = partOf(type);
    if (!path) return undefined;
    const bytes = zip.bytes(path)!;
    // UTF-16 parts (a BOM) are left to the parser to decode.
    const utf8 = bytes[0] !== 0xff && bytes[0] !== 0xfe;
    const source = trim && utf8 ? trim(new TextDecoder().decode(bytes)) : bytes;
    const part = parseXml(source, budget, { part: path, lenient: true });
    if (part.damage) warnings.push(part.damage);
    return part.root;
  };
  const styles = readStyles(parsePart('styles', withoutLatentStyles));
  const numbering = readNumbering(parsePart('numbering'));
  const notes = new Notes({ footnote: partOf('footnotes'), endnote: partOf('endnotes') });
  const images = new Map<string, string | undefined>();

  const ctx: DocxContext = {
    zip,
    budget,
    part: { path: main, rels },
    styles,
    numbering,
    shiftHeadings: usesTitle(body, styles),
    fields: [],
    noteRef: (kind, id) => notes.reference(kind, id, ctx),
    image(relId, linked) {
      const rel = ctx.part.rels.get(relId);
      if (!rel) return undefined;
      if (rel.external || linked)
        return /^\s*(?:javascript|vbscript|data):/i.test(rel.target) ? undefined : rel.target;
      if (images.has(rel.target)) return images.get(rel.target);
      const bytes = zip.bytes(rel.target);
      const uri = bytes
        ? `data:${mimeOf(rel.target, bytes)};base64,${Buffer.from(bytes).toString('base64')}`
        : undefined;
      images.set(rel.target, uri);
      return uri;
    },
    blocks: (nodes, where) => walkBlocks(nodes, ctx, where),
    warnings,
  };

  const tree: Root = { type: 'root', children: walkBlocks(body.children, ctx) };
  const section = notes.section(ctx);
  if (section) tree.children.push(section);

  const metadata = readCoreProperties(zip, budget);
  if (metadata.language === undefined && styles.language) metadata.language = styles.language;

  const result: QuireDocument = {
    kind: 'document',
    tree,
    metadata,
    contentType: contentTypeOf(input.format),
    baseUrl: input.url,
    warnings,
  };
  return result;
};
