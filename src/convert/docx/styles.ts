import { child, childrenNamed, type XmlElement } from '../package/xml.ts';
import { mergeRunProps, type RunProps, readRunProps } from './run-props.ts';

/** What a paragraph style (with everything it inherits through basedOn) means for the output. */
export interface ParagraphStyle {
  /** 0 for Title, N for "Heading N" (any UI language) or outline level N-1; undefined for body text. */
  heading?: number;
  quote: boolean;
  code: boolean;
  numbering?: { numId: string; ilvl: number };
  run: RunProps;
}

export interface Styles {
  paragraph(id: string | undefined): ParagraphStyle;
  character(id: string | undefined): RunProps;
  /** Run properties of docDefaults. */
  defaults: RunProps;
  /** docDefaults' w:lang, the document's language when core.xml has none. */
  language: string | undefined;
}

/** "Heading 2" in the languages Word ships, plus the built-in lowercase English names. */
const HEADING_NAME =
  /^(?:heading|berschrift|überschrift|titre|título|titulo|kop|titolo|заголовок|επικεφαλίδα|見出し|rubrik|overskrift|otsikko|nagłówek|naglowek|nadpis|címsor|başlık|baslik|cabeçalho|encabezado|标题|標題|제목|kopregel)\s*(\d)$/i;
const TITLE_NAME =
  /^(?:title|titel|titre|título|titulo|titolo|заголовок|название|tytuł|τίτλος|název|cím|rubrik|konu başlığı|表題|标题|標題|제목)$/i;
/** Quote, Intense Quote, Zitat, Citation intense, Cita destacada …, and Block Text. */
const QUOTE_NAME =
  /(?:^|\s)(?:quote|zitat|citation|cita|citação|citazione|цитата|citaat|cytat|引用)(?:\s|$)|^block ?text$/i;
const CODE_NAME =
  /^(?:source ?code|html ?preformatted|preformatted ?text|plain ?text|code|code ?block|macro ?text|verbatim)$/i;
const CODE_CHAR_NAME =
  /^(?:verbatim ?char|html ?code|html ?typewriter|html ?keyboard|html ?sample|html ?variable|code ?char|inline ?code|source ?code ?char)$/i;

interface RawStyle {
  el: XmlElement;
  name: string;
  basedOn: string | undefined;
}

const EMPTY_PARAGRAPH: ParagraphStyle = { quote: false, code: false, run: {} };

/** Style inheritance is followed this deep at most (a basedOn cycle stops here too). */
const MAX_CHAIN = 32;

function headingOfName(name: string): number | undefined {
  const m = HEADING_NAME.exec(name.trim());
  if (m) return Math.max(1, Number(m[1]));
  return TITLE_NAME.test(name.trim()) ? 0 : undefined;
}

/** Outline level 0-8 of a pPr; 9 means body text. */
export function outlineLevel(pPr: XmlElement | undefined): number | undefined {
  const v = pPr && child(pPr, 'w:outlineLvl')?.attrs['w:val'];
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

export function readStyles(root: XmlElement | undefined): Styles {
  const raw = new Map<string, RawStyle>();
  let defaults: RunProps = {};
  let language: string | undefined;
  if (root) {
    const docDefaults = child(root, 'w:docDefaults');
    const rPr = docDefaults && child(child(docDefaults, 'w:rPrDefault') ?? docDefaults, 'w:rPr');
    if (rPr) {
      defaults = readRunProps(rPr);
      language = child(rPr, 'w:lang')?.attrs['w:val'];
    }
    for (const el of childrenNamed(root, 'w:style')) {
      const id = el.attrs['w:styleId'];
      if (id === undefined || raw.has(id)) continue;
      raw.set(id, {
        el,
        name: child(el, 'w:name')?.attrs['w:val'] ?? id,
        basedOn: child(el, 'w:basedOn')?.attrs['w:val'],
      });
    }
  }

  let defaultParagraphId: string | undefined;
  for (const [id, s] of raw) {
    const def = s.el.attrs['w:default'];
    if (s.el.attrs['w:type'] === 'paragraph' && (def === '1' || def === 'true')) {
      defaultParagraphId = id;
      break;
    }
  }

  /** The style and its ancestors, nearest first. */
  const chain = (id: string | undefined): RawStyle[] => {
    const out: RawStyle[] = [];
    let at = id;
    while (at !== undefined && out.length < MAX_CHAIN) {
      const style = raw.get(at);
      if (!style || out.includes(style)) break;
      out.push(style);
      at = style.basedOn;
    }
    return out;
  };

  const runOf = (styles: RawStyle[]): RunProps => {
    let run: RunProps = {};
    for (let i = styles.length - 1; i >= 0; i--) {
      run = mergeRunProps(run, readRunProps(child(styles[i]!.el, 'w:rPr')));
    }
    return run;
  };

  const paragraphCache = new Map<string, ParagraphStyle>();
  const paragraph = (id: string | undefined): ParagraphStyle => {
    if (id === undefined) id = defaultParagraphId;
    if (id === undefined) return EMPTY_PARAGRAPH;
    const cached = paragraphCache.get(id);
    if (cached) return cached;
    const styles = chain(id);
    const result: ParagraphStyle = { quote: false, code: false, run: runOf(styles) };
    // The default style's typeface is the document's, so a monospace one does not make code.
    result.run.mono = runOf(styles.filter((s) => s.el.attrs['w:styleId'] !== defaultParagraphId)).mono;
    // A name says more than an outline level (TOC Heading is based on heading 1 but sets level 9).
    for (const s of styles) {
      const byName = headingOfName(s.name) ?? headingOfName(s.el.attrs['w:styleId'] ?? '');
      if (byName !== undefined) {
        result.heading = byName;
        break;
      }
    }
    if (result.heading === undefined) {
      for (const s of styles) {
        const level = outlineLevel(child(s.el, 'w:pPr'));
        if (level === undefined) continue;
        if (level < 9) result.heading = level + 1;
        break;
      }
    }
    result.quote = styles.some((s) => QUOTE_NAME.test(s.name));
    result.code = styles.some((s) => CODE_NAME.test(s.name) || CODE_NAME.test(s.el.attrs['w:styleId'] ?? ''));
    if (result.code) result.run.mono = true;
    for (const s of styles) {
      const numPr = child(child(s.el, 'w:pPr') ?? s.el, 'w:numPr');
      if (!numPr) continue;
      const numId = child(numPr, 'w:numId')?.attrs['w:val'];
      if (numId !== undefined) {
        result.numbering = { numId, ilvl: Number(child(numPr, 'w:ilvl')?.attrs['w:val'] ?? 0) || 0 };
      }
      break;
    }
    paragraphCache.set(id, result);
    return result;
  };

  const characterCache = new Map<string, RunProps>();
  const character = (id: string | undefined): RunProps => {
    if (id === undefined) return {};
    const cached = characterCache.get(id);
    if (cached) return cached;
    const styles = chain(id);
    const run = runOf(styles);
    if (
      styles.some((s) => CODE_CHAR_NAME.test(s.name) || CODE_CHAR_NAME.test(s.el.attrs['w:styleId'] ?? ''))
    ) {
      run.mono = true;
    }
    characterCache.set(id, run);
    return run;
  };

  return { paragraph, character, defaults, language };
}
