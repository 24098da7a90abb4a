import { zip } from './zip.ts';

export const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
export const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
export const RELS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const W14 = 'http://schemas.microsoft.com/office/word/2010/wordml';
const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';
const WORD = 'application/vnd.openxmlformats-officedocument.wordprocessingml';

export const run = (text: string) => `<w:r><w:t xml:space="preserve">${text}</w:t></w:r>`;
export const para = (...content: string[]) => `<w:p>${content.join('')}</w:p>`;

/** A part of the package besides the document, with its content type when it needs one. */
export interface WordPart {
  name: string;
  data: string | Uint8Array;
  contentType?: string;
}

export interface WordPackage {
  /** The XML inside `w:body`. */
  body: string;
  /** `<Relationship>` elements of the document part (links, pictures, notes, comments). */
  rels?: readonly string[];
  parts?: readonly WordPart[];
  /** The XML inside `cp:coreProperties` (with the dc, dcterms and xsi prefixes declared). */
  core?: string;
}

/** Content types of the parts a test document holds, as Word writes them. */
export const wordTypes = {
  endnotes: `${WORD}.endnotes+xml`,
  comments: `${WORD}.comments+xml`,
};

/**
 * A DOCX package built in memory, laid out as Word lays it out: the content types, the package
 * relationships (document, core properties), the document and its relationships, and the parts.
 */
export function wordPackage(pkg: WordPackage): Buffer {
  const override = (part: string, type: string) => `<Override PartName="/${part}" ContentType="${type}"/>`;
  const parts = pkg.parts ?? [];
  const core = pkg.core === undefined ? [] : [{ name: 'docProps/core.xml', data: coreXml(pkg.core) }];
  return zip([
    {
      name: '[Content_Types].xml',
      data:
        `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="png" ContentType="image/png"/>' +
        override('word/document.xml', `${WORD}.document.main+xml`) +
        parts.map((p) => (p.contentType ? override(p.name, p.contentType) : '')).join('') +
        (core.length > 0
          ? override('docProps/core.xml', 'application/vnd.openxmlformats-package.core-properties+xml')
          : '') +
        '</Types>',
    },
    {
      name: '_rels/.rels',
      data:
        `${XML}<Relationships xmlns="${RELS}">` +
        `<Relationship Id="rId1" Type="${R}/officeDocument" Target="word/document.xml"/>` +
        (core.length > 0
          ? `<Relationship Id="rId2" Type="${RELS}/metadata/core-properties" Target="docProps/core.xml"/>`
          : '') +
        '</Relationships>',
    },
    {
      name: 'word/document.xml',
      data: `${XML}<w:document xmlns:w="${W}" xmlns:w14="${W14}" xmlns:r="${R}"><w:body>${pkg.body}<w:sectPr/></w:body></w:document>`,
    },
    {
      name: 'word/_rels/document.xml.rels',
      data: `${XML}<Relationships xmlns="${RELS}">${(pkg.rels ?? []).join('')}</Relationships>`,
    },
    ...parts.map(({ name, data }) => ({ name, data })),
    ...core,
  ]);
}

function coreXml(inner: string): string {
  return (
    `${XML}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" ` +
    'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
    `${inner}</cp:coreProperties>`
  );
}
