import { child, childrenNamed, type XmlElement } from '../package/xml.ts';

/** One level of a list definition. */
export interface ListLevel {
  format: string;
  start: number;
  text: string;
  /** The bullet's font (Symbol, Wingdings), to read private-use glyphs. */
  font: string | undefined;
}

export interface ListItemNumber {
  level: ListLevel;
  /** Which list the paragraph belongs to: paragraphs of one abstract definition continue each other. */
  key: string;
  /** The item's number (meaningful for ordered formats). */
  value: number;
  /** True when this paragraph restarted the numbering (a w:startOverride took effect). */
  restarted: boolean;
  /**
   * The number as Word shows it, when it includes outer levels' numbers ("1.2."): Markdown
   * lists cannot show that, so the text keeps it.
   */
  compound: string | undefined;
}

interface NumInstance {
  abstractId: string;
  overrides: Map<number, { start?: number; level?: ListLevel }>;
}

export interface Numbering {
  /** Advances the counters for a list paragraph; undefined when the numbering does not exist. */
  next(numId: string, ilvl: number): ListItemNumber | undefined;
  /** The level definition without counting (for headings, which keep only their text). */
  level(numId: string, ilvl: number): ListLevel | undefined;
}

const MAX_LEVEL = 8;

function readLevel(lvl: XmlElement): ListLevel {
  const start = Number(child(lvl, 'w:start')?.attrs['w:val'] ?? 1);
  const fonts = child(child(lvl, 'w:rPr') ?? lvl, 'w:rFonts');
  return {
    format: child(lvl, 'w:numFmt')?.attrs['w:val'] ?? 'decimal',
    start: Number.isFinite(start) ? start : 1,
    text: child(lvl, 'w:lvlText')?.attrs['w:val'] ?? '',
    font: fonts?.attrs['w:ascii'] ?? fonts?.attrs['w:hAnsi'],
  };
}

function readLevels(el: XmlElement): Map<number, ListLevel> {
  const levels = new Map<number, ListLevel>();
  for (const lvl of childrenNamed(el, 'w:lvl')) {
    const ilvl = Number(lvl.attrs['w:ilvl'] ?? 0);
    if (Number.isInteger(ilvl) && !levels.has(ilvl)) levels.set(ilvl, readLevel(lvl));
  }
  return levels;
}

/**
 * numbering.xml: abstract list definitions, the numbering instances that use them, and the
 * running counters. Word counts per abstract definition, so a list interrupted by other
 * paragraphs (or continued under another numId of the same definition) resumes its numbers;
 * a w:startOverride restarts them the first time its instance is used.
 */
export function readNumbering(root: XmlElement | undefined): Numbering {
  const abstracts = new Map<string, Map<number, ListLevel>>();
  const styleLinks = new Map<string, string>();
  const numStyleLinks = new Map<string, string>();
  const nums = new Map<string, NumInstance>();
  if (root) {
    for (const el of childrenNamed(root, 'w:abstractNum')) {
      const id = el.attrs['w:abstractNumId'];
      if (id === undefined || abstracts.has(id)) continue;
      abstracts.set(id, readLevels(el));
      const link = child(el, 'w:styleLink')?.attrs['w:val'];
      if (link !== undefined) styleLinks.set(link, id);
      const numLink = child(el, 'w:numStyleLink')?.attrs['w:val'];
      if (numLink !== undefined) numStyleLinks.set(id, numLink);
    }
    for (const el of childrenNamed(root, 'w:num')) {
      const id = el.attrs['w:numId'];
      const abstractId = child(el, 'w:abstractNumId')?.attrs['w:val'];
      if (id === undefined || abstractId === undefined || nums.has(id)) continue;
      const overrides = new Map<number, { start?: number; level?: ListLevel }>();
      for (const o of childrenNamed(el, 'w:lvlOverride')) {
        const ilvl = Number(o.attrs['w:ilvl'] ?? 0);
        const entry: { start?: number; level?: ListLevel } = {};
        const start = child(o, 'w:startOverride')?.attrs['w:val'];
        if (start !== undefined && Number.isFinite(Number(start))) entry.start = Number(start);
        const lvl = child(o, 'w:lvl');
        if (lvl) entry.level = readLevel(lvl);
        overrides.set(ilvl, entry);
      }
      // A definition that only points at a numbering style takes that style's levels.
      const linked = numStyleLinks.get(abstractId);
      const target = linked !== undefined ? (styleLinks.get(linked) ?? abstractId) : abstractId;
      nums.set(id, { abstractId: target, overrides });
    }
  }

  const counters = new Map<string, (number | undefined)[]>();
  const used = new Set<string>();

  const level = (numId: string, ilvl: number): ListLevel | undefined => {
    const num = nums.get(numId);
    if (!num) return undefined;
    const at = Math.min(Math.max(ilvl, 0), MAX_LEVEL);
    return num.overrides.get(at)?.level ?? abstracts.get(num.abstractId)?.get(at);
  };

  const next = (numId: string, ilvl: number): ListItemNumber | undefined => {
    const num = nums.get(numId);
    const lvl = level(numId, ilvl);
    if (!num || !lvl) return undefined;
    const at = Math.min(Math.max(ilvl, 0), MAX_LEVEL);
    const counts = counters.get(num.abstractId) ?? [];
    counters.set(num.abstractId, counts);
    let restarted = false;
    if (!used.has(numId)) {
      used.add(numId);
      for (const [i, o] of num.overrides) {
        if (o.start !== undefined && i >= 0 && i <= MAX_LEVEL) {
          counts[i] = o.start - 1;
          if (i === at) restarted = true;
        }
      }
    }
    const value = (counts[at] ?? lvl.start - 1) + 1;
    counts[at] = value;
    // A higher level's new item restarts the levels below it.
    for (let i = at + 1; i <= MAX_LEVEL; i++) counts[i] = undefined;
    let compound: string | undefined;
    if (/%(\d)/.test(lvl.text) && [...lvl.text.matchAll(/%(\d)/g)].some((m) => Number(m[1]) - 1 !== at)) {
      compound = lvl.text.replace(/%(\d)/g, (_m, d: string) => {
        const i = Number(d) - 1;
        const l = level(numId, i);
        return formatNumber(counts[i] ?? l?.start ?? 1, l?.format ?? 'decimal');
      });
    }
    return { level: lvl, key: num.abstractId, value, restarted, compound };
  };

  return { next, level };
}

const ROMAN: [number, string][] = [
  [1000, 'm'],
  [900, 'cm'],
  [500, 'd'],
  [400, 'cd'],
  [100, 'c'],
  [90, 'xc'],
  [50, 'l'],
  [40, 'xl'],
  [10, 'x'],
  [9, 'ix'],
  [5, 'v'],
  [4, 'iv'],
  [1, 'i'],
];

function roman(n: number): string {
  let out = '';
  let rest = Math.min(Math.max(n, 1), 3999);
  for (const [v, s] of ROMAN) {
    while (rest >= v) {
      out += s;
      rest -= v;
    }
  }
  return out;
}

function letters(n: number): string {
  // Word repeats the letter past z: a … z, aa … zz, aaa …
  const k = Math.max(n, 1) - 1;
  return String.fromCharCode(97 + (k % 26)).repeat(Math.min(Math.floor(k / 26) + 1, 8));
}

/** A counter value in a level's number format. */
function formatNumber(n: number, format: string): string {
  switch (format) {
    case 'lowerRoman':
      return roman(n);
    case 'upperRoman':
      return roman(n).toUpperCase();
    case 'lowerLetter':
      return letters(n);
    case 'upperLetter':
      return letters(n).toUpperCase();
    case 'decimalZero':
      return n < 10 ? `0${n}` : String(n);
    default:
      return String(n);
  }
}
