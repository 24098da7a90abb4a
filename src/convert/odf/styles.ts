import { childrenNamed, type XmlElement } from '../package/xml.ts';

/**
 * OpenDocument styles (ODF 1.3 part 3 §16), shared by the text, spreadsheet and presentation
 * converters: automatic styles of content.xml first, then the common styles of styles.xml,
 * each resolved through its `style:parent-style-name` chain.
 */

/** Character formatting that survives into Markdown / semantic HTML. */
export interface TextFormat {
  bold: boolean;
  italic: boolean;
  strike: boolean;
  sup: boolean;
  sub: boolean;
  mono: boolean;
}

export const PLAIN: TextFormat = {
  bold: false,
  italic: false,
  strike: false,
  sup: false,
  sub: false,
  mono: false,
};

/** What one style says explicitly; an absent key inherits. */
export type FormatOverrides = Partial<TextFormat>;

export interface ResolvedStyle {
  /** Names up the parent chain, own first, as display names in lower case ("heading 1"). */
  names: string[];
  /** Formatting stated along the chain; `text` is the same over plain defaults. */
  overrides: FormatOverrides;
  text: TextFormat;
  /** `style:default-outline-level`, inherited: paragraph styles that are headings. */
  outlineLevel: number | undefined;
  /** `style:list-style-name`, inherited: paragraphs that belong to a list style. */
  listStyleName: string | undefined;
  /** Left margin in centimetres, inherited (indented paragraphs read as quotations). */
  marginLeftCm: number | undefined;
  /** First-line indent in centimetres, inherited (negative: a hanging indent, not a quotation). */
  textIndentCm: number | undefined;
}

interface RawStyle {
  displayName: string;
  parent: string | undefined;
  text: FormatOverrides;
  outlineLevel: number | undefined;
  listStyleName: string | undefined;
  marginLeftCm: number | undefined;
  textIndentCm: number | undefined;
}

export interface ListLevelStyle {
  ordered: boolean;
  /** `style:num-format`: 1, a, A, i, I ('' for a numbered level that shows no number). */
  format: string;
  start: number;
}

/** A list style: its level styles by level (1-based). */
export type ListStyle = Map<number, ListLevelStyle>;

/** Fixed-pitch families by name ("Monotype" is a foundry, not a pitch). */
const MONO_FAMILY =
  /mono(?!type)|courier|consolas|menlo|monaco|source code|fixedsys|lucida console|inconsolata|\bcode\b/i;

/** `Heading_20_1` → `Heading 1`: ODF escapes characters of style names as `_xx_` hex. */
export function decodeStyleName(name: string): string {
  return name.replace(/_([0-9a-fA-F]{2})_/g, (_, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
}

const CM_PER_UNIT: Record<string, number> = {
  cm: 1,
  mm: 0.1,
  in: 2.54,
  pt: 2.54 / 72,
  pc: 2.54 / 6,
  px: 2.54 / 96,
};

/** `1.5cm`, `0.5in`, `12pt` → centimetres; percentages and junk → undefined. */
function lengthCm(value: string | undefined): number | undefined {
  const m = value ? /^(-?\d*\.?\d+)\s*(cm|mm|in|pt|pc|px)$/.exec(value.trim()) : null;
  return m ? Number(m[1]) * CM_PER_UNIT[m[2]!]! : undefined;
}

function weightIsBold(value: string): boolean {
  const n = Number(value);
  return value === 'bold' || value === 'bolder' || (Number.isFinite(n) && n >= 600);
}

/** `super`, `sub`, or a signed percentage (`33% 58%`, `-33%`). */
function textPosition(value: string): 'sup' | 'sub' | 'none' {
  const first = value.trim().split(/\s+/)[0] ?? '';
  if (first === 'super') return 'sup';
  if (first === 'sub') return 'sub';
  const n = Number.parseFloat(first);
  if (!Number.isFinite(n) || n === 0) return 'none';
  return n > 0 ? 'sup' : 'sub';
}

export class OdfStyles {
  private readonly automatic = new Map<string, RawStyle>();
  private readonly common = new Map<string, RawStyle>();
  private readonly lists = new Map<string, ListStyle>();
  private readonly monoFonts = new Set<string>();
  /** Resolutions by family, then name (no key strings built on the hot path). */
  private readonly resolved = new Map<string, Map<string, ResolvedStyle | null>>();
  private readonly textFormats = new Map<string, FormatOverrides>();

  /**
   * `contentRoot` is content.xml's root (automatic styles used by the body); `stylesRoot` is
   * styles.xml's (common styles, their automatic styles, list styles). A flat document
   * (`office:document`) passes its one root as both.
   */
  constructor(contentRoot: XmlElement, stylesRoot: XmlElement | undefined) {
    for (const root of [contentRoot, stylesRoot]) {
      if (!root) continue;
      for (const decls of childrenNamed(root, 'office:font-face-decls')) this.readFonts(decls);
    }
    for (const auto of childrenNamed(contentRoot, 'office:automatic-styles'))
      this.readStyles(auto, this.automatic);
    if (stylesRoot) {
      for (const common of childrenNamed(stylesRoot, 'office:styles')) this.readStyles(common, this.common);
      if (stylesRoot !== contentRoot) {
        // styles.xml's own automatic styles serve headers and footers; body names win.
        for (const auto of childrenNamed(stylesRoot, 'office:automatic-styles')) {
          this.readStyles(auto, this.automatic, false);
        }
      }
    }
  }

  private readFonts(decls: XmlElement): void {
    for (const face of childrenNamed(decls, 'style:font-face')) {
      const name = face.attrs['style:name'];
      if (!name) continue;
      const family = face.attrs['svg:font-family'] ?? name;
      if (face.attrs['style:font-pitch'] === 'fixed' || MONO_FAMILY.test(family)) this.monoFonts.add(name);
    }
  }

  private readStyles(container: XmlElement, into: Map<string, RawStyle>, overwrite = true): void {
    for (const el of container.children) {
      if (typeof el === 'string') continue;
      if (el.name === 'text:list-style') {
        const name = el.attrs['style:name'];
        if (name && (overwrite || !this.lists.has(name))) this.lists.set(name, readListStyle(el));
        continue;
      }
      if (el.name !== 'style:style') continue;
      const name = el.attrs['style:name'];
      const family = el.attrs['style:family'] ?? '';
      if (!name) continue;
      const key = `${family}\u0000${name}`;
      if (!overwrite && into.has(key)) continue;
      into.set(key, this.readStyle(el, name));
    }
  }

  private readStyle(el: XmlElement, name: string): RawStyle {
    const text: FormatOverrides = {};
    let marginLeftCm: number | undefined;
    let textIndentCm: number | undefined;
    for (const props of el.children) {
      if (typeof props === 'string') continue;
      if (props.name === 'style:text-properties') this.readTextProperties(props.attrs, text);
      else if (props.name === 'style:paragraph-properties') {
        marginLeftCm = lengthCm(props.attrs['fo:margin-left']);
        textIndentCm = lengthCm(props.attrs['fo:text-indent']);
      }
    }
    const level = Number.parseInt(el.attrs['style:default-outline-level'] ?? '', 10);
    return {
      displayName: (el.attrs['style:display-name'] ?? decodeStyleName(name)).toLowerCase(),
      parent: el.attrs['style:parent-style-name'],
      text,
      outlineLevel: level >= 1 ? level : undefined,
      listStyleName: el.attrs['style:list-style-name'],
      marginLeftCm,
      textIndentCm,
    };
  }

  private readTextProperties(a: Record<string, string>, text: FormatOverrides): void {
    const weight = a['fo:font-weight'];
    if (weight) text.bold = weightIsBold(weight);
    const style = a['fo:font-style'];
    if (style) text.italic = style === 'italic' || style === 'oblique';
    const through = a['style:text-line-through-style'];
    if (through) text.strike = through !== 'none';
    const position = a['style:text-position'];
    if (position) {
      const kind = textPosition(position);
      text.sup = kind === 'sup';
      text.sub = kind === 'sub';
    }
    const font = a['style:font-name'];
    const family = a['fo:font-family'];
    if (font) text.mono = this.monoFonts.has(font) || MONO_FAMILY.test(font);
    else if (family) text.mono = MONO_FAMILY.test(family);
  }

  /** The style `name` of `family` (`paragraph`, `text`, `table-cell`, ...) resolved, or undefined. */
  resolve(family: string, name: string | undefined): ResolvedStyle | undefined {
    if (!name) return undefined;
    let byName = this.resolved.get(family);
    if (!byName) {
      byName = new Map();
      this.resolved.set(family, byName);
    }
    const cached = byName.get(name);
    if (cached !== undefined) return cached ?? undefined;
    const result = this.resolveChain(family, name);
    byName.set(name, result ?? null);
    return result;
  }

  private resolveChain(family: string, name: string): ResolvedStyle | undefined {
    const key = `${family}\u0000${name}`;
    const own = this.automatic.get(key) ?? this.common.get(key);
    if (!own) return undefined;
    // Parents are common styles; the chain is walked iteratively and cut at a repeat.
    const chain: RawStyle[] = [own];
    const seen = new Set<string>([name]);
    let parent = own.parent;
    while (parent && !seen.has(parent)) {
      seen.add(parent);
      const next = this.common.get(`${family}\u0000${parent}`);
      if (!next) break;
      chain.push(next);
      parent = next.parent;
    }
    const overrides: FormatOverrides = {};
    let outlineLevel: number | undefined;
    let listStyleName: string | undefined;
    let marginLeftCm: number | undefined;
    let textIndentCm: number | undefined;
    for (let i = chain.length - 1; i >= 0; i--) {
      const s = chain[i]!;
      Object.assign(overrides, s.text);
      outlineLevel = s.outlineLevel ?? outlineLevel;
      listStyleName = s.listStyleName ?? listStyleName;
      marginLeftCm = s.marginLeftCm ?? marginLeftCm;
      textIndentCm = s.textIndentCm ?? textIndentCm;
    }
    return {
      names: chain.map((s) => s.displayName),
      overrides,
      text: { ...PLAIN, ...overrides },
      outlineLevel,
      listStyleName,
      marginLeftCm,
      textIndentCm,
    };
  }

  /** What a text (span) style states, well-known style names filling gaps; unset keys inherit. */
  textFormat(name: string | undefined): FormatOverrides {
    if (!name) return {};
    let format = this.textFormats.get(name);
    if (!format) {
      const style = this.resolve('text', name);
      format = style
        ? { ...namedFormat(style.names), ...style.overrides }
        : namedFormat([decodeStyleName(name).toLowerCase()]);
      this.textFormats.set(name, format);
    }
    return format;
  }

  list(name: string | undefined): ListStyle | undefined {
    return name ? this.lists.get(name) : undefined;
  }
}

/** Character styles whose meaning is their name, for documents whose styles.xml lacks them. */
function namedFormat(names: readonly string[]): FormatOverrides {
  const out: FormatOverrides = {};
  for (const n of names) {
    if (n === 'emphasis') out.italic = true;
    else if (n === 'strong emphasis' || n === 'strong') out.bold = true;
    else if (n === 'source text' || n === 'teletype' || n === 'code' || n === 'verbatim char')
      out.mono = true;
  }
  return out;
}

function readListStyle(el: XmlElement): ListStyle {
  const levels: ListStyle = new Map();
  for (const level of el.children) {
    if (typeof level === 'string') continue;
    const n = Number.parseInt(level.attrs['text:level'] ?? '', 10);
    if (!(n >= 1 && n <= 10)) continue;
    if (level.name === 'text:list-level-style-number') {
      const format = level.attrs['style:num-format'] ?? '1';
      const start = Number.parseInt(level.attrs['text:start-value'] ?? '1', 10);
      levels.set(n, { ordered: format !== '', format, start: start >= 0 ? start : 1 });
    } else if (
      level.name === 'text:list-level-style-bullet' ||
      level.name === 'text:list-level-style-image'
    ) {
      levels.set(n, { ordered: false, format: '', start: 1 });
    }
  }
  return levels;
}
