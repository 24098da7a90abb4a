import type { ListPlace } from './blocks.ts';

/** `\levelnfcN` values that are not numbers: 23 bullet, 255 none. */
const NFC_BULLET = 23;
const NFC_NONE = 255;

/** `\levelnfcN` 1-4 (roman and letters) as HTML `ol[type]`; 0 and the rest are decimal. */
const NUMBERING: Readonly<Record<number, string>> = { 1: 'I', 2: 'i', 3: 'A', 4: 'a' };

interface LevelDef {
  nfc: number;
  start: number;
}

/** Legacy `\pn` paragraph numbering kinds. */
export const PN_NONE = 0;
export const PN_BULLET = 1;
export const PN_NUMBERED = 2;
export const PN_CONTINUE = 3;

/** A list paragraph's own settings, from the group state at its end. */
interface ListRequest {
  ls: number;
  ilvl: number;
  pnKind: number;
  pnStart: number;
  /** The paragraph's `\listtext` / `\pntext`, undefined when it has none. */
  listText: string | undefined;
}

/** A marker that is a number or letter (`1.`, `(a)`, `iv)`): the list is ordered. */
const ORDERED_MARKER = /^\s*[([]?(\d+|[ivxlcdm]+|[a-z])[.)\]]/i;

/**
 * `\listtable` and `\listoverridetable`, and the numbering state of the lists in use:
 * decides whether a paragraph is a list item, in which list, at which number.
 */
export class ListTable {
  private readonly lists = new Map<number, LevelDef[]>();
  private readonly overrides = new Map<number, number>();
  private currentLevels: LevelDef[] = [];
  private currentId = 0;
  private overrideList = 0;
  private overrideLs = 0;
  /** Lists whose items carry `\listtext`: there, a paragraph without one continues an item. */
  private readonly markedLists = new Set<number>();
  /** Item counts by list key, one per level. */
  private readonly counters = new Map<string, number[]>();

  beginList(): void {
    this.currentLevels = [];
    this.currentId = 0;
  }

  beginLevel(): void {
    this.currentLevels.push({ nfc: 0, start: 1 });
  }

  levelFormat(nfc: number): void {
    const level = this.currentLevels[this.currentLevels.length - 1];
    if (level) level.nfc = nfc;
  }

  levelStart(start: number): void {
    const level = this.currentLevels[this.currentLevels.length - 1];
    if (level) level.start = start;
  }

  listId(id: number, inOverride: boolean): void {
    if (inOverride) this.overrideList = id;
    else this.currentId = id;
  }

  endList(): void {
    this.lists.set(this.currentId, this.currentLevels);
  }

  beginOverride(): void {
    this.overrideList = 0;
    this.overrideLs = 0;
  }

  overrideNumber(ls: number): void {
    this.overrideLs = ls;
  }

  endOverride(): void {
    this.overrides.set(this.overrideLs, this.overrideList);
  }

  /** The list place of a paragraph, 'continuation' for another paragraph of an item, or undefined. */
  place(req: ListRequest): ListPlace | 'continuation' | undefined {
    const levels = req.ls > 0 ? this.lists.get(this.overrides.get(req.ls) ?? -1) : undefined;
    if (levels && levels.length > 0) {
      if (req.listText !== undefined) this.markedLists.add(req.ls);
      else if (this.markedLists.has(req.ls)) return 'continuation';
      const level = Math.max(0, Math.min(req.ilvl, levels.length - 1));
      const def = levels[level]!;
      if (def.nfc === NFC_NONE) return 'continuation';
      return this.count(
        `ls${req.ls}`,
        level,
        def.nfc !== NFC_BULLET,
        def.start,
        req.listText,
        NUMBERING[def.nfc],
      );
    }
    if (req.pnKind === PN_CONTINUE) return 'continuation';
    if (req.pnKind === PN_BULLET || req.pnKind === PN_NUMBERED) {
      return this.count(`pn${req.ls}`, req.ilvl, req.pnKind === PN_NUMBERED, req.pnStart, req.listText);
    }
    if (req.ls > 0) {
      const ordered = req.listText !== undefined && ORDERED_MARKER.test(req.listText);
      return this.count(`ls${req.ls}`, req.ilvl, ordered, 1, req.listText);
    }
    return undefined;
  }

  private count(
    key: string,
    level: number,
    ordered: boolean,
    start: number,
    listText: string | undefined,
    numbering?: string,
  ): ListPlace {
    const depth = Math.max(0, Math.min(level, 8));
    let counts = this.counters.get(key);
    if (!counts) {
      counts = [];
      this.counters.set(key, counts);
    }
    counts.length = depth + 1;
    const shown = ordered && listText ? /^\s*[([]?(\d+)/.exec(listText) : null;
    const number = shown ? Number(shown[1]) : (counts[depth] ?? start - 1) + 1;
    counts[depth] = number;
    return { key: `${key}:${ordered ? 'o' : 'u'}`, level: depth, ordered, number, numbering };
  }
}
