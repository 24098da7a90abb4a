import { type PptRecord, type RecordReader, RT } from './records.ts';
import { readTextGroups, type TextGroup } from './text-group.ts';

/**
 * A SlideListWithTextContainer ([MS-PPT]): per slide (or notes page) in order, a
 * SlidePersistAtom (persist id of the slide's container, its slide id) followed by the texts
 * of its placeholders, which the slide's drawing references by index (OutlineTextRefAtom).
 * Instance 0 lists the slides, 1 the masters, 2 the notes pages.
 */
export interface SlideEntry {
  persistId: number;
  slideId: number;
  texts: TextGroup[];
}

export const SLIDE_LIST = { slides: 0, notes: 2 } as const;

export function readSlideList(
  reader: RecordReader,
  documentChildren: PptRecord[],
  instance: number,
  hyperlinks: Map<number, string>,
): SlideEntry[] {
  const list = documentChildren.find((c) => c.type === RT.slideListWithText && c.instance === instance);
  if (!list) return [];
  const entries: SlideEntry[] = [];
  let records: PptRecord[] = [];
  const flush = () => {
    const entry = entries[entries.length - 1];
    if (entry) entry.texts = readTextGroups(reader, records, hyperlinks);
    records = [];
  };
  for (const rec of reader.children(list)) {
    if (rec.type === RT.slidePersistAtom) {
      flush();
      const size = rec.end - rec.body;
      entries.push({
        persistId: size >= 4 ? reader.r.u32(rec.body) : 0,
        slideId: size >= 16 ? reader.r.u32(rec.body + 12) : 0,
        texts: [],
      });
    } else {
      records.push(rec);
    }
  }
  flush();
  return entries;
}
