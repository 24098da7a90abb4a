import type { Flow } from './flow.ts';

/** What the text of a group is: where it goes, or why it is read at all. */
export const D_BODY = 0;
export const D_FONTTBL = 1;
export const D_STYLESHEET = 2;
export const D_INFO = 3;
export const D_INFO_TEXT = 4;
export const D_INFO_DATE = 5;
/** Text gathered into `capture` and used when the group ends (field instruction, list marker, bookmark). */
export const D_CAPTURE = 6;
export const D_PICT = 7;
export const D_LISTTABLE = 8;
export const D_LIST = 9;
export const D_LISTLEVEL = 10;
export const D_OVERRIDES = 11;
export const D_OVERRIDE = 12;
export const D_PN = 13;
/** A shape's instructions or a picture's properties: only pictures, text boxes and alt text matter. */
export const D_SHAPE = 14;
/** A stylesheet entry. */
export const D_STYLE = 15;

export const CAPTURE_FIELD = 1;
export const CAPTURE_LISTTEXT = 2;
export const CAPTURE_BOOKMARK = 3;
/** A shape or picture property (`{\sp{\sn name}{\sv value}}`): its name, its value. */
export const CAPTURE_PROP_NAME = 4;
export const CAPTURE_PROP_VALUE = 5;

/**
 * Everything a group inherits from its parent and restores when it ends: destination,
 * character formatting, and paragraph properties (which RTF scopes to groups as well).
 * States are pooled by depth and copied field by field, so groups allocate nothing.
 */
export class GroupState {
  dest = D_BODY;
  /** This group set `dest`: its end finishes the destination. */
  owner = false;
  fmt = 0;
  font = -1;
  hidden = false;
  uc = 1;
  href: string | undefined = undefined;
  flow: Flow;
  capture: string[] | undefined = undefined;
  captureKind = 0;
  /** Metadata key of an `\info` field. */
  infoKey = '';
  /** Inside `\nesttableprops`: row definitions are for the nested table. */
  nestProps = false;

  style = 0;
  outline = -1;
  ls = 0;
  ilvl = 0;
  intbl = false;
  itap = 0;
  pnKind = 0;
  pnStart = 1;

  constructor(flow: Flow) {
    this.flow = flow;
  }

  copyFrom(o: GroupState): void {
    this.dest = o.dest;
    this.owner = false;
    this.fmt = o.fmt;
    this.font = o.font;
    this.hidden = o.hidden;
    this.uc = o.uc;
    this.href = o.href;
    this.flow = o.flow;
    this.capture = o.capture;
    this.captureKind = o.captureKind;
    this.infoKey = o.infoKey;
    this.nestProps = o.nestProps;
    this.style = o.style;
    this.outline = o.outline;
    this.ls = o.ls;
    this.ilvl = o.ilvl;
    this.intbl = o.intbl;
    this.itap = o.itap;
    this.pnKind = o.pnKind;
    this.pnStart = o.pnStart;
  }

  /** `\pard`. */
  resetParagraph(): void {
    this.style = 0;
    this.outline = -1;
    this.ls = 0;
    this.ilvl = 0;
    this.intbl = false;
    this.itap = 0;
    this.pnKind = 0;
    this.pnStart = 1;
  }

  /** Table depth of the paragraph: `\itapN`, or 1 for `\intbl` alone. */
  get tableLevel(): number {
    return this.itap > 0 ? this.itap : this.intbl ? 1 : 0;
  }
}
