import type { Numbering } from './numbering.ts';
import { type PptRecord, type RecordReader, RT } from './records.ts';

/**
 * One shape's text ([MS-PPT] TextClientDataSubContainerOrAtom): a TextHeaderAtom (the
 * text type), the characters (TextCharsAtom UTF-16LE, or TextBytesAtom whose bytes are the low
 * bytes of UTF-16 code units, i.e. Latin-1), its StyleTextPropAtom and hyperlink ranges. Such
 * groups follow each other in a SlideListWithText and sit one per shape in a ClientTextbox.
 */
export interface TextGroup {
  type: number;
  text: string;
  style: PptRecord | undefined;
  links: TextLink[];
  /** The shape's numbering entries (PowerPoint 2000+), indexed by a run's pp9rt. */
  numbering: Numbering[];
}

export interface TextLink {
  start: number;
  end: number;
  href: string;
}

/** TextHeaderAtom text types ([MS-PPT] TextTypeEnum). */
export const TEXT_TYPE = {
  title: 0,
  body: 1,
  notes: 2,
  other: 4,
  centerBody: 5,
  centerTitle: 6,
  halfBody: 7,
  quarterBody: 8,
} as const;

/**
 * TextBytesAtom bytes are Latin-1 by the spec; PowerPoint never stores 0x80-0x9F there (C1
 * controls), other writers put Windows-1252 punctuation there, which this decoder reads.
 */
const latin1 = new TextDecoder('windows-1252');
const utf16 = new TextDecoder('utf-16le');
/** InteractiveInfoAtom: exHyperlinkIdRef at 4, action at 8; action 4 follows a hyperlink. */
const ACTION_HYPERLINK = 4;

/**
 * Groups the text records in `records` (a container's children, in order); `hyperlinks`
 * resolves ExHyperlink ids to their targets.
 */
export function readTextGroups(
  reader: RecordReader,
  records: PptRecord[],
  hyperlinks: Map<number, string>,
): TextGroup[] {
  const r = reader.r;
  const groups: TextGroup[] = [];
  let group: TextGroup | undefined;
  let pendingHref: string | undefined;
  for (const rec of records) {
    switch (rec.type) {
      case RT.textHeaderAtom:
        group = {
          type: rec.end - rec.body >= 4 ? r.u32(rec.body) : TEXT_TYPE.other,
          text: '',
          style: undefined,
          links: [],
          numbering: [],
        };
        groups.push(group);
        pendingHref = undefined;
        break;
      case RT.textCharsAtom:
        if (group) group.text = utf16.decode(reader.bytes(rec));
        break;
      case RT.textBytesAtom:
        if (group) group.text = latin1.decode(reader.bytes(rec));
        break;
      case RT.styleTextPropAtom:
        if (group) group.style = rec;
        break;
      case RT.interactiveInfo:
        pendingHref = hyperlinkOf(reader, rec, hyperlinks);
        break;
      case RT.textInteractiveInfoAtom:
        if (group && pendingHref && rec.end - rec.body >= 8) {
          group.links.push({ start: r.u32(rec.body), end: r.u32(rec.body + 4), href: pendingHref });
        }
        pendingHref = undefined;
        break;
    }
  }
  return groups;
}

function hyperlinkOf(
  reader: RecordReader,
  container: PptRecord,
  hyperlinks: Map<number, string>,
): string | undefined {
  const atom = reader.child(container, RT.interactiveInfoAtom);
  if (!atom || atom.end - atom.body < 9) return undefined;
  if (reader.r.u8(atom.body + 8) !== ACTION_HYPERLINK) return undefined;
  return hyperlinks.get(reader.r.u32(atom.body + 4));
}

/** ExObjList → ExHyperlink id → target URL ([MS-PPT]), for web and mail targets. */
export function readHyperlinks(reader: RecordReader, exObjList: PptRecord | undefined): Map<number, string> {
  const links = new Map<number, string>();
  if (!exObjList) return links;
  for (const link of reader.children(exObjList)) {
    if (link.type !== RT.exHyperlink) continue;
    let id: number | undefined;
    let target: string | undefined;
    for (const rec of reader.children(link)) {
      if (rec.type === RT.exHyperlinkAtom && rec.end - rec.body >= 4) id = reader.r.u32(rec.body);
      else if (rec.type === RT.cString && rec.instance === 1) target = utf16.decode(reader.bytes(rec)).trim();
    }
    if (id !== undefined && target && /^(https?|ftp|mailto):/i.test(target)) links.set(id, target);
  }
  return links;
}
