/**
 * Property modifiers ([MS-DOC] 2.6 Sprm): a grpprl is a run of (sprm, operand) pairs whose
 * operand size is coded in the sprm itself. Reads stop at the first pair that does not fit,
 * so a damaged grpprl loses its tail, never more.
 */

/** Paragraph and character sprms the converter reads. */
export const SPRM = {
  pIstd: 0x4600,
  pIlvl: 0x260a,
  pIlfo: 0x460b,
  pFInTable: 0x2416,
  pFTtp: 0x2417,
  pOutLvl: 0x2640,
  pItap: 0x6649,
  pFInnerTableCell: 0x244b,
  pFInnerTtp: 0x244c,
  tDefTable: 0xd608,
  cFRMarkDel: 0x0800,
  cFSpec: 0x0855,
  cFBold: 0x0835,
  cFItalic: 0x0836,
  cFStrike: 0x0837,
  cFDStrike: 0x2a53,
  cIss: 0x2a48,
  cIstd: 0x4a30,
  cPicLocation: 0x6a03,
  cFData: 0x0806,
} as const;

const SPRM_P_CHG_TABS = 0xc615;

function operandSize(bytes: Uint8Array, sprm: number, at: number): number {
  switch (sprm >> 13) {
    case 0:
    case 1:
      return 1;
    case 2:
    case 4:
    case 5:
      return 2;
    case 3:
      return 4;
    case 7:
      return 3;
    default: {
      // Variable: a length byte first, except for the two sprms with their own framing.
      if (sprm === SPRM.tDefTable)
        return at + 1 < bytes.length ? 2 + bytes[at]! + bytes[at + 1]! * 256 - 1 : -1;
      if (sprm === SPRM_P_CHG_TABS && bytes[at] === 255) return -1;
      return at < bytes.length ? 1 + bytes[at]! : -1;
    }
  }
}

/** Calls `visit(sprm, operandOffset)` for each modifier of `grpprl[start..]`. */
export function forEachSprm(
  grpprl: Uint8Array,
  start: number,
  visit: (sprm: number, at: number) => void,
): void {
  let at = start;
  while (at + 2 <= grpprl.length) {
    const sprm = grpprl[at]! | (grpprl[at + 1]! << 8);
    const size = operandSize(grpprl, sprm, at + 2);
    if (size < 0 || at + 2 + size > grpprl.length) return;
    visit(sprm, at + 2);
    at += 2 + size;
  }
}

/** Operand readers; callers only pass offsets `forEachSprm` checked. */
export function op8(b: Uint8Array, at: number): number {
  return b[at] ?? 0;
}

export function op16(b: Uint8Array, at: number): number {
  return (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
}

export function op32(b: Uint8Array, at: number): number {
  return ((b[at] ?? 0) | ((b[at + 1] ?? 0) << 8) | ((b[at + 2] ?? 0) << 16) | ((b[at + 3] ?? 0) << 24)) >>> 0;
}
