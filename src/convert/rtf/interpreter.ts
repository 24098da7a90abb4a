import type { Element, ElementContent } from 'hast';
import type { DocumentMetadata } from '../../document/model.ts';
import { limits } from '../../limits.ts';
import type { ParagraphRole } from './blocks.ts';
import { PendingBytes } from './codepage.ts';
import { demoteCode } from './demote-code.ts';
import { fieldLink } from './fields.ts';
import { Flow } from './flow.ts';
import { FontTable } from './fonts.ts';
import {
  CAPTURE_BOOKMARK,
  CAPTURE_FIELD,
  CAPTURE_LISTTEXT,
  CAPTURE_PROP_NAME,
  CAPTURE_PROP_VALUE,
  D_BODY,
  D_CAPTURE,
  D_FONTTBL,
  D_INFO,
  D_INFO_DATE,
  D_INFO_TEXT,
  D_LIST,
  D_LISTLEVEL,
  D_LISTTABLE,
  D_OVERRIDE,
  D_OVERRIDES,
  D_PICT,
  D_PN,
  D_SHAPE,
  D_STYLE,
  D_STYLESHEET,
  GroupState,
} from './group-state.ts';
import { BOLD, CODE, ITALIC, type Paragraph, STRIKE, SUB, SUPER } from './inline.ts';
import { ListTable, PN_BULLET, PN_CONTINUE, PN_NONE, PN_NUMBERED } from './lists.ts';
import {
  type DateParts,
  emptyDate,
  INFO_DATE_KEYS,
  INFO_TEXT_KEYS,
  isoDate,
  lcidLanguage,
} from './metadata.ts';
import { type Note, notesSection } from './notes.ts';
import { Picture } from './picture.ts';
import { StyleSheet } from './styles.ts';
import { RowDefinitions } from './tables.ts';
import { BIN, CLOSE, EOF, HEX, OPEN, RtfTokenizer, SYMBOL, TEXT, WORD } from './tokenizer.ts';
import { SKIPPED, SPECIAL_CHARS, STRUCTURAL } from './vocabulary.ts';

interface RtfContent {
  body: ElementContent[];
  metadata: DocumentMetadata;
  warnings: string[];
  /** The input ended inside open groups. */
  truncated: boolean;
}

/**
 * The RTF interpreter: a loop over tokens (never recursion) with one state per open group.
 * Text is decoded in the current font's code page and sent to the group's destination:
 * the body or a note (paragraphs, lists, tables), or a table read for its definitions
 * (fonts, styles, lists, document info).
 */
export class RtfInterpreter {
  private readonly tok: RtfTokenizer;
  private readonly states: GroupState[];
  private depth = 0;
  private readonly body = new Flow(true);
  private readonly pending = new PendingBytes();
  private readonly fonts = new FontTable();
  private readonly styles = new StyleSheet();
  private readonly lists = new ListTable();
  private readonly metadata: DocumentMetadata = {};
  private readonly warnings: string[] = [];
  private readonly notes: Note[] = [];
  private readonly noteOf = new Map<Flow, Note>();
  private ansicpg = 1252;
  private deff = -1;
  /** Fallback characters of a `\uN` still to skip. */
  private skip = 0;
  private starred = false;
  private done = false;
  private truncated = false;
  private picture: Picture | undefined;
  /** The last shape property name seen, and a shape's description waiting for its picture. */
  private propName = '';
  private pendingAlt: string | undefined;
  private date: DateParts = emptyDate();
  private readonly rowDefs = new RowDefinitions();
  private depthWarned = false;
  /** Body characters, and those in a monospace font: a mostly monospace document has no code. */
  private textChars = 0;
  private codeChars = 0;

  constructor(bytes: Uint8Array, start: number) {
    this.tok = new RtfTokenizer(bytes, start);
    this.states = [new GroupState(this.body)];
  }

  run(): RtfContent {
    const tok = this.tok;
    while (!this.done) {
      const kind = tok.next();
      if (kind === TEXT) this.text(tok.start, tok.end);
      else if (kind === HEX) this.hex(tok.byte);
      else if (kind === SYMBOL) this.symbol(tok.byte);
      else {
        this.flush();
        if (kind === WORD) this.word(tok.word, tok.param, tok.hasParam);
        else if (kind === OPEN) this.open();
        else if (kind === CLOSE) this.close();
        else if (kind === BIN) this.bin(tok.start, tok.end);
        else if (kind === EOF) this.eof();
      }
    }
    const body = this.body.finish();
    if (this.notes.length > 0) body.push(notesSection(this.notes));
    if (this.codeChars > this.textChars / 2) demoteCode(body);
    return { body, metadata: this.metadata, warnings: this.warnings, truncated: this.truncated };
  }

  private get top(): GroupState {
    return this.states[this.depth]!;
  }

  // ---------------------------------------------------------------- groups

  private open(): void {
    this.skip = 0;
    this.starred = false;
    if (this.depth + 1 >= limits.rtfGroupDepth) {
      if (!this.depthWarned) {
        this.depthWarned = true;
        this.warnings.push(
          `RTF groups nest deeper than ${limits.rtfGroupDepth} levels (limits.rtfGroupDepth); the deeper groups were skipped.`,
        );
      }
      if (!this.tok.skipGroup()) this.truncated = true;
      return;
    }
    const parent = this.top;
    this.depth++;
    let st = this.states[this.depth];
    if (!st) {
      st = new GroupState(parent.flow);
      this.states[this.depth] = st;
    }
    st.copyFrom(parent);
    if (parent.dest === D_STYLESHEET) {
      this.setDest(st, D_STYLE);
      this.styles.begin();
    }
  }

  private close(): void {
    this.skip = 0;
    this.starred = false;
    if (this.depth === 0) {
      this.done = true;
      return;
    }
    const st = this.top;
    const parent = this.states[this.depth - 1]!;
    if (st.owner) this.endDestination(st, parent);
    if (st.flow !== parent.flow || this.depth === 1) {
      st.flow.endParagraph(st.tableLevel, (p) => this.role(p, st));
      const note = this.noteOf.get(st.flow);
      if (note) note.blocks = st.flow.finish();
    }
    this.depth--;
    if (this.depth === 0) this.done = true;
  }

  private eof(): void {
    if (this.depth > 0) {
      this.truncated = true;
      this.warnings.push(
        `The RTF document ends inside ${this.depth} unclosed group${this.depth === 1 ? '' : 's'}; the text read up to the end was kept.`,
      );
    }
    while (!this.done) this.close();
  }

  /** The rest of the current group is skipped (its closing brace included). */
  private skipGroup(): void {
    if (!this.tok.skipGroup()) this.truncated = true;
    this.close();
  }

  private setDest(st: GroupState, dest: number): void {
    st.dest = dest;
    st.owner = true;
  }

  private capture(st: GroupState, kind: number): void {
    this.setDest(st, D_CAPTURE);
    st.capture = [];
    st.captureKind = kind;
  }

  private endDestination(st: GroupState, parent: GroupState): void {
    switch (st.dest) {
      case D_STYLE:
        this.styles.end();
        break;
      case D_INFO_TEXT: {
        const value = st.capture!.join('').trim().toWellFormed();
        if (value && st.infoKey) this.metadata[st.infoKey] = value;
        break;
      }
      case D_INFO_DATE: {
        const value = isoDate(this.date);
        if (value && st.infoKey) this.metadata[st.infoKey] = value;
        break;
      }
      case D_CAPTURE:
        this.endCapture(st, parent);
        break;
      case D_PICT:
        this.endPicture(st);
        break;
      case D_LIST:
        this.lists.endList();
        break;
      case D_OVERRIDE:
        this.lists.endOverride();
        break;
      case D_PN:
        parent.pnKind = st.pnKind;
        parent.pnStart = st.pnStart;
        break;
    }
  }

  private endCapture(st: GroupState, parent: GroupState): void {
    const text = st.capture!.join('');
    if (st.captureKind === CAPTURE_FIELD) {
      // The field's result (a sibling group) is shown as a link.
      const href = fieldLink(text);
      if (href) parent.href = href;
    } else if (st.captureKind === CAPTURE_LISTTEXT) {
      if (parent.dest === D_BODY) st.flow.para.listText = text;
    } else if (st.captureKind === CAPTURE_PROP_NAME) {
      this.propName = text.trim();
    } else if (st.captureKind === CAPTURE_PROP_VALUE) {
      const alt = text.trim();
      if (alt && this.propName === 'wzDescription') {
        if (this.picture) this.picture.alt = alt;
        else this.pendingAlt = alt;
      }
    } else if (st.captureKind === CAPTURE_BOOKMARK) {
      const id = text.trim();
      if (id && parent.dest === D_BODY) {
        st.flow.para.addNode(
          { type: 'element', tagName: 'a', properties: { id }, children: [] },
          undefined,
          false,
        );
      }
    }
  }

  private endPicture(st: GroupState): void {
    const picture = this.picture;
    this.picture = undefined;
    if (picture && picture.size > limits.embeddedImageBytes) {
      this.warnings.push(
        `An embedded picture of ${picture.size} bytes exceeds limits.embeddedImageBytes and was left out.`,
      );
      return;
    }
    const src = picture?.dataUri();
    if (!src) return;
    const img: Element = {
      type: 'element',
      tagName: 'img',
      properties: { src, alt: picture!.alt ?? 'image' },
      children: [],
    };
    st.flow.para.addNode(img, st.href);
  }

  // ---------------------------------------------------------------- text

  private text(start: number, end: number): void {
    if (this.skip > 0) {
      const k = Math.min(this.skip, end - start);
      start += k;
      this.skip -= k;
      if (start >= end) return;
    }
    this.starred = false;
    const st = this.top;
    if (st.dest === D_PICT) this.picture?.hex(this.tok.bytes, start, end);
    else if (carriesText(st.dest)) this.pending.pushRange(this.tok.bytes, start, end);
  }

  private hex(byte: number): void {
    if (this.skip > 0) {
      this.skip--;
      return;
    }
    if (carriesText(this.top.dest)) this.pending.push(byte);
  }

  private bin(start: number, end: number): void {
    if (this.skip > 0) {
      this.skip--;
      return;
    }
    if (this.top.dest === D_PICT) this.picture?.raw(this.tok.bytes, start, end);
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const st = this.top;
    const font = st.font < 0 ? this.deff : st.font;
    this.emit(st, this.pending.take(this.fonts.codepageOf(font, this.ansicpg)));
  }

  private emit(st: GroupState, text: string): void {
    switch (st.dest) {
      case D_BODY:
        if (!st.hidden) {
          const fmt = this.format(st);
          this.textChars += text.length;
          if (fmt & CODE) this.codeChars += text.length;
          st.flow.para.addText(text, fmt, st.href);
        }
        break;
      case D_CAPTURE:
      case D_INFO_TEXT:
        st.capture!.push(text);
        break;
      case D_FONTTBL:
        this.fonts.text(text);
        break;
      case D_STYLE:
        this.styles.text(text);
        break;
    }
  }

  private emitChar(text: string): void {
    this.flush();
    this.emit(this.top, text);
  }

  private format(st: GroupState): number {
    const font = st.font < 0 ? this.deff : st.font;
    // A document set in a monospace font throughout is not code.
    const code = font !== this.deff && this.fonts.isMonospace(font) && !this.fonts.isMonospace(this.deff);
    return code ? st.fmt | CODE : st.fmt;
  }

  private symbol(c: number): void {
    if (this.skip > 0) {
      this.skip--;
      return;
    }
    // \\ \{ \}: literal bytes, possibly the trail byte of a double-byte character.
    if (c === 0x5c || c === 0x7b || c === 0x7d) {
      this.starred = false;
      if (carriesText(this.top.dest)) this.pending.push(c);
      return;
    }
    this.flush();
    if (c === 0x2a) {
      this.starred = true;
      return;
    }
    this.starred = false;
    if (c === 0x7e) this.emitChar('\u00a0');
    else if (c === 0x5f) this.emitChar('-');
  }

  // ---------------------------------------------------------------- control words

  private word(word: string, param: number, hasParam: boolean): void {
    if (this.skip > 0) {
      if (!STRUCTURAL.has(word)) {
        this.skip--;
        return;
      }
      this.skip = 0;
    }
    const st = this.top;
    if (this.starred) {
      this.starred = false;
      if (!this.destination(word, param, st)) this.skipGroup();
      return;
    }
    if (this.destination(word, param, st)) return;
    const on = !hasParam || param !== 0;
    switch (st.dest) {
      case D_BODY:
        if (!this.charWord(word, param, st)) this.bodyWord(word, param, on, st);
        return;
      case D_CAPTURE:
      case D_INFO_TEXT:
        this.charWord(word, param, st);
        return;
      case D_FONTTBL:
        if (word === 'f') this.fonts.begin(param);
        else if (word === 'fcharset') this.fonts.charset(param);
        else if (word === 'cpg') this.fonts.codepage(param);
        else if (word === 'u' || word === 'uc') this.charWord(word, param, st);
        return;
      case D_STYLE:
        this.styleWord(word, param, st);
        return;
      case D_INFO_DATE:
        if (Object.hasOwn(this.date, word)) this.date[word as keyof DateParts] = param;
        return;
      case D_PN:
        if (word === 'pnlvlblt') st.pnKind = PN_BULLET;
        else if (word === 'pnlvlbody') st.pnKind = PN_NUMBERED;
        else if (word === 'pnlvlcont') st.pnKind = PN_CONTINUE;
        else if (word === 'pnlvl') st.pnKind = PN_NONE;
        else if (word === 'pnstart') st.pnStart = param;
        return;
      case D_LIST:
        if (word === 'listid') this.lists.listId(param, false);
        return;
      case D_LISTLEVEL:
        if (word === 'levelnfc' || word === 'levelnfcn') this.lists.levelFormat(param);
        else if (word === 'levelstartat') this.lists.levelStart(param);
        return;
      case D_OVERRIDE:
        if (word === 'listid') this.lists.listId(param, true);
        else if (word === 'ls') this.lists.overrideNumber(param);
        return;
      case D_PICT:
        this.picture?.word(word);
        return;
    }
  }

  /**
   * A word that starts a destination in the current one. Returns false for words that are
   * not destinations here (after `\*`, the group is then skipped).
   */
  private destination(word: string, param: number, st: GroupState): boolean {
    if (SKIPPED.has(word)) {
      this.skipGroup();
      return true;
    }
    switch (st.dest) {
      case D_BODY:
        return this.bodyDestination(word, st);
      case D_SHAPE:
        if (word === 'pict') this.startPicture(st);
        else if (word === 'shptxt') st.dest = D_BODY;
        else if (word === 'sn') this.capture(st, CAPTURE_PROP_NAME);
        else if (word === 'sv') this.capture(st, CAPTURE_PROP_VALUE);
        else return word === 'sp' || word === 'shpinst' || word === 'picprop';
        return true;
      case D_PICT:
        if (word !== 'picprop') return false;
        this.setDest(st, D_SHAPE);
        return true;
      case D_CAPTURE:
        // A shape's picture is the value of its `pib` property.
        if (word !== 'pict' || st.captureKind !== CAPTURE_PROP_VALUE) return false;
        this.startPicture(st);
        return true;
      case D_INFO: {
        const textKey = INFO_TEXT_KEYS.get(word);
        const dateKey = INFO_DATE_KEYS.get(word);
        if (textKey !== undefined) {
          this.setDest(st, D_INFO_TEXT);
          st.capture = [];
          st.infoKey = textKey;
        } else if (dateKey !== undefined) {
          this.setDest(st, D_INFO_DATE);
          st.infoKey = dateKey;
          this.date = emptyDate();
        } else return false;
        return true;
      }
      case D_LISTTABLE:
        if (word !== 'list') return false;
        this.setDest(st, D_LIST);
        this.lists.beginList();
        return true;
      case D_LIST:
        if (word !== 'listlevel') return false;
        this.setDest(st, D_LISTLEVEL);
        this.lists.beginLevel();
        return true;
      case D_OVERRIDES:
        if (word !== 'listoverride') return false;
        this.setDest(st, D_OVERRIDE);
        this.lists.beginOverride();
        return true;
      case D_STYLE:
        if (word !== 'cs' && word !== 'ds' && word !== 'ts') return false;
        this.styleWord(word, param, st);
        return true;
      default:
        return false;
    }
  }

  private bodyDestination(word: string, st: GroupState): boolean {
    switch (word) {
      case 'fonttbl':
        this.setDest(st, D_FONTTBL);
        return true;
      case 'stylesheet':
        this.setDest(st, D_STYLESHEET);
        return true;
      case 'info':
        this.setDest(st, D_INFO);
        return true;
      case 'listtable':
        this.setDest(st, D_LISTTABLE);
        return true;
      case 'listoverridetable':
        this.setDest(st, D_OVERRIDES);
        return true;
      case 'pict':
        this.startPicture(st);
        return true;
      case 'footnote':
        this.startNote(st);
        return true;
      case 'fldinst':
        this.capture(st, CAPTURE_FIELD);
        return true;
      case 'bkmkstart':
        this.capture(st, CAPTURE_BOOKMARK);
        return true;
      case 'listtext':
      case 'pntext':
        this.capture(st, CAPTURE_LISTTEXT);
        return true;
      case 'pn':
        this.setDest(st, D_PN);
        st.pnKind = PN_NONE;
        st.pnStart = 1;
        return true;
      case 'shpinst':
        this.setDest(st, D_SHAPE);
        return true;
      case 'nesttableprops':
        st.nestProps = true;
        return true;
      case 'field':
      case 'fldrslt':
      case 'shp':
      case 'shppict':
      case 'shptxt':
      case 'object':
      case 'result':
        return true;
      default:
        return false;
    }
  }

  private startPicture(st: GroupState): void {
    this.setDest(st, D_PICT);
    this.picture = new Picture();
    this.picture.alt = this.pendingAlt;
    this.pendingAlt = undefined;
  }

  private startNote(st: GroupState): void {
    const label = String(this.notes.length + 1);
    const ref: Element = {
      type: 'element',
      tagName: 'sup',
      properties: {},
      children: [
        {
          type: 'element',
          tagName: 'a',
          properties: { href: `#fn-${label}`, id: `fnref-${label}`, dataFootnoteRef: true },
          children: [{ type: 'text', value: label }],
        },
      ],
    };
    st.flow.para.addNode(ref, undefined);
    const note: Note = { label, blocks: [] };
    this.notes.push(note);
    st.flow = new Flow(true);
    this.noteOf.set(st.flow, note);
    st.resetParagraph();
    st.fmt = 0;
    st.href = undefined;
  }

  /** Words that produce or decode text, in every destination that has text. */
  private charWord(word: string, param: number, st: GroupState): boolean {
    const special = SPECIAL_CHARS.get(word);
    if (special !== undefined) {
      this.emitChar(special);
      return true;
    }
    switch (word) {
      case 'u':
        this.emitChar(String.fromCharCode(param < 0 ? param + 65536 : param));
        this.skip = st.uc;
        return true;
      case 'uc':
        st.uc = Math.max(0, Math.min(param, 16));
        return true;
      case 'f':
        st.font = param;
        return true;
      case 'plain':
        st.fmt = 0;
        st.font = this.deff;
        st.hidden = false;
        return true;
      default:
        return false;
    }
  }

  private styleWord(word: string, param: number, st: GroupState): void {
    const sheet = this.styles;
    if (word === 's') sheet.number(param);
    else if (word === 'cs' || word === 'ds' || word === 'ts') sheet.notParagraph();
    else if (word === 'outlinelevel') sheet.outline(param);
    else if (word === 'sbasedon') sheet.basedOn(param);
    else this.charWord(word, param, st);
  }

  private bodyWord(word: string, param: number, on: boolean, st: GroupState): void {
    switch (word) {
      case 'par':
      case 'sect':
        st.flow.endParagraph(st.tableLevel, (p) => this.role(p, st));
        return;
      case 'pard':
        st.resetParagraph();
        return;
      case 'line':
        st.flow.para.addNode(
          { type: 'element', tagName: 'br', properties: {}, children: [] },
          st.href,
          false,
        );
        return;
      case 'b':
        st.fmt = on ? st.fmt | BOLD : st.fmt & ~BOLD;
        return;
      case 'i':
        st.fmt = on ? st.fmt | ITALIC : st.fmt & ~ITALIC;
        return;
      case 'strike':
      case 'striked':
        st.fmt = on ? st.fmt | STRIKE : st.fmt & ~STRIKE;
        return;
      case 'super':
        st.fmt = on ? (st.fmt | SUPER) & ~SUB : st.fmt & ~SUPER;
        return;
      case 'sub':
        st.fmt = on ? (st.fmt | SUB) & ~SUPER : st.fmt & ~SUB;
        return;
      case 'nosupersub':
        st.fmt &= ~(SUPER | SUB);
        return;
      case 'v':
      case 'deleted':
        st.hidden = on;
        return;
      case 's':
        st.style = param;
        return;
      case 'outlinelevel':
        st.outline = param;
        return;
      case 'ls':
        st.ls = param;
        return;
      case 'ilvl':
        st.ilvl = param;
        return;
      case 'intbl':
        st.intbl = true;
        return;
      case 'itap':
        st.itap = Math.max(0, Math.min(param, 64));
        return;
      case 'cell':
        st.flow.endCell(1, (p) => this.role(p, st));
        return;
      case 'nestcell':
        st.flow.endCell(Math.max(2, st.itap), (p) => this.role(p, st));
        return;
      case 'row':
        st.flow.endRow(1, this.rowDefs.get(1), (p) => this.role(p, st));
        return;
      case 'nestrow': {
        const level = Math.max(2, st.itap);
        st.flow.endRow(level, this.rowDefs.get(level), (p) => this.role(p, st));
        return;
      }
      case 'trowd':
        this.rowDefs.begin(st.nestProps ? Math.max(2, st.itap) : 1);
        return;
      case 'cellx':
        this.rowDefs.cell(param);
        return;
      case 'clmgf':
      case 'clmrg':
      case 'clvmgf':
      case 'clvmrg':
        this.rowDefs.merge(word);
        return;
      case 'trhdr':
        this.rowDefs.header();
        return;
      case 'ansicpg':
        if (param > 0) this.ansicpg = param;
        return;
      case 'mac':
        this.ansicpg = 10000;
        return;
      case 'deff':
        this.deff = param;
        return;
      case 'deflang': {
        const language = lcidLanguage(param);
        if (language && !this.metadata.language) this.metadata.language = language;
        return;
      }
    }
  }

  /** How a finished paragraph is placed: heading, list item or continuation, or plain. */
  private role(para: Paragraph, st: GroupState): ParagraphRole {
    const heading =
      st.outline >= 0 && st.outline < 9 ? Math.min(6, st.outline + 1) : this.styles.headingLevel(st.style);
    if (heading) return { heading, list: undefined, continuation: false };
    const place = this.lists.place({
      ls: st.ls,
      ilvl: st.ilvl,
      pnKind: st.pnKind,
      pnStart: st.pnStart,
      listText: para.listText,
    });
    if (place === 'continuation') return { heading: 0, list: undefined, continuation: true };
    if (!place && para.listText) para.prependText(para.listText);
    return { heading: 0, list: place, continuation: false };
  }
}

function carriesText(dest: number): boolean {
  return (
    dest === D_BODY || dest === D_CAPTURE || dest === D_INFO_TEXT || dest === D_FONTTBL || dest === D_STYLE
  );
}
