import { type FkpRun, nextRunAfter, runAt } from './fkp.ts';
import { fcOf, type Piece, pieceAt } from './piece-table.ts';
import { forEachSprm, op8, op16, op32, SPRM } from './sprm.ts';
import { type CellDef, readTableDef } from './table-grid.ts';

/** What the converter needs of a paragraph's properties. */
export interface ParagraphProps {
  istd: number;
  ilvl: number;
  ilfo: number;
  /** Table nesting depth: 0 outside tables. */
  depth: number;
  /** Row end of the depth-1 table (fTtp) / of a nested table (fInnerTtp). */
  rowEnd: boolean;
  innerRowEnd: boolean;
  /** Cell end of a nested table (its cell marks are ordinary paragraph marks). */
  innerCellEnd: boolean;
  /** Row ends: the row's cell geometry (sprmTDefTable). */
  cells: CellDef[] | undefined;
}

/** Tables nested deeper than this are flattened into their parent's cells. */
const MAX_TABLE_DEPTH = 8;

interface SprmState {
  inTable: boolean;
  itap: number;
  /** Where the last sprmTDefTable operand lies, read only if the paragraph ends a row. */
  tableDef: { grpprl: Uint8Array; at: number } | undefined;
}

function applyParagraphSprms(grpprl: Uint8Array, p: ParagraphProps, state: SprmState): void {
  forEachSprm(grpprl, 0, (sprm, o) => {
    switch (sprm) {
      case SPRM.tDefTable:
        state.tableDef = { grpprl, at: o };
        break;
      case SPRM.pIstd:
        p.istd = op16(grpprl, o);
        break;
      case SPRM.pIlvl:
        p.ilvl = op8(grpprl, o);
        break;
      case SPRM.pIlfo:
        p.ilfo = (op16(grpprl, o) << 16) >> 16;
        break;
      case SPRM.pFInTable:
        state.inTable = op8(grpprl, o) !== 0;
        break;
      case SPRM.pFTtp:
        p.rowEnd = op8(grpprl, o) !== 0;
        break;
      case SPRM.pItap:
        state.itap = op32(grpprl, o) | 0;
        break;
      case SPRM.pFInnerTableCell:
        p.innerCellEnd = op8(grpprl, o) !== 0;
        break;
      case SPRM.pFInnerTtp:
        p.innerRowEnd = op8(grpprl, o) !== 0;
        break;
    }
  });
}

/** Properties of the paragraph whose mark is at `cp`: its PAPX run, then its piece's Prc. */
export function paragraphProps(
  pieces: readonly Piece[],
  papx: readonly FkpRun[],
  cp: number,
): ParagraphProps {
  const p: ParagraphProps = {
    istd: 0,
    ilvl: 0,
    ilfo: 0,
    depth: 0,
    rowEnd: false,
    innerRowEnd: false,
    innerCellEnd: false,
    cells: undefined,
  };
  const state: SprmState = { inTable: false, itap: 0, tableDef: undefined };
  const piece = pieceAt(pieces, cp);
  if (piece) {
    const run = papx[runAt(papx, fcOf(piece, cp))];
    if (run) {
      p.istd = run.istd;
      applyParagraphSprms(run.grpprl, p, state);
    }
    if (piece.grpprl) applyParagraphSprms(piece.grpprl, p, state);
  }
  const depth = state.itap > 0 ? state.itap : state.inTable ? 1 : 0;
  p.depth = Math.min(depth, MAX_TABLE_DEPTH);
  p.ilvl = Math.min(p.ilvl, 8);
  const def = state.tableDef;
  if (def && (p.rowEnd || p.innerRowEnd)) {
    // The operand starts with its size, plus one, as 2 bytes.
    p.cells = readTableDef(def.grpprl, def.at + 2, def.at + 1 + op16(def.grpprl, def.at));
  }
  return p;
}

/** Character formatting the converter keeps or acts on. */
export interface CharFormat {
  bold: boolean;
  italic: boolean;
  strike: boolean;
  /** Tracked deletion: kept, shown struck through, as Word shows it with markup. */
  deleted: boolean;
  /** Special characters (fSpec): 0x01 is then a picture, at `picture` in the Data stream. */
  special: boolean;
  picture: number | undefined;
}

const PLAIN: CharFormat = {
  bold: false,
  italic: false,
  strike: false,
  deleted: false,
  special: false,
  picture: undefined,
};

/** A toggle operand: 0 off, 1 on, 0x81 "opposite of the style" (styles are taken as off). */
function toggle(operand: number): boolean {
  return operand === 1 || operand === 0x81;
}

function charFormat(grpprl: Uint8Array): CharFormat {
  if (grpprl.length === 0) return PLAIN;
  const f = { ...PLAIN };
  let data = false;
  forEachSprm(grpprl, 0, (sprm, o) => {
    const v = op8(grpprl, o);
    if (sprm === SPRM.cFBold) f.bold = toggle(v);
    else if (sprm === SPRM.cFItalic) f.italic = toggle(v);
    else if (sprm === SPRM.cFStrike || sprm === SPRM.cFDStrike) f.strike = toggle(v);
    else if (sprm === SPRM.cFRMarkDel) f.deleted = toggle(v);
    else if (sprm === SPRM.cFSpec) f.special = v !== 0;
    else if (sprm === SPRM.cPicLocation) f.picture = op32(grpprl, o);
    else if (sprm === SPRM.cFData) data = v !== 0;
  });
  // With fData the location points at form field data, not a picture.
  if (data) f.picture = undefined;
  return f;
}

/**
 * Character formatting by CP, for a forward walk over the text: `at(cp)` gives the format and
 * the CP where it may next change, so a story is read in runs, not per character.
 */
export class CharFormatCursor {
  private readonly pieces: readonly Piece[];
  private readonly chpx: readonly FkpRun[];
  private readonly cache = new Map<number, CharFormat>();

  constructor(pieces: readonly Piece[], chpx: readonly FkpRun[]) {
    this.pieces = pieces;
    this.chpx = chpx;
  }

  at(cp: number): { format: CharFormat; until: number } {
    const piece = pieceAt(this.pieces, cp);
    if (!piece) return { format: PLAIN, until: cp + 1 };
    const fc = fcOf(piece, cp);
    const index = runAt(this.chpx, fc);
    const run = this.chpx[index];
    const width = piece.compressed ? 1 : 2;
    if (!run) {
      // Not covered by any run: plain up to the next run or the piece's end.
      const next = this.chpx[nextRunAfter(this.chpx, fc)];
      const until = next ? cp + Math.max(1, Math.ceil((next.fcStart - fc) / width)) : piece.cpEnd;
      return { format: PLAIN, until: Math.min(piece.cpEnd, until) };
    }
    let format = this.cache.get(index);
    if (!format) {
      format = charFormat(run.grpprl);
      this.cache.set(index, format);
    }
    return { format, until: Math.min(piece.cpEnd, cp + Math.max(1, Math.ceil((run.fcEnd - fc) / width))) };
  }
}
