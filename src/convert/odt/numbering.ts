import type { XmlElement } from '../package/xml.ts';

/**
 * Where an ordered top-level list starts: its first item's `text:start-value`, else the
 * continuation of an earlier list (`text:continue-list` names it by xml:id;
 * `text:continue-numbering="true"` means the previous list of the same list style), else the
 * list style's start value. Nested lists restart, as they do in a word processor.
 */
export class ListNumbering {
  private readonly nextById = new Map<string, number>();
  private readonly nextByStyle = new Map<string, number>();

  start(list: XmlElement, styleName: string | undefined, styleStart: number): number {
    const continued = list.attrs['text:continue-list'];
    if (continued && this.nextById.has(continued)) return this.nextById.get(continued)!;
    if (list.attrs['text:continue-numbering'] === 'true' && styleName && this.nextByStyle.has(styleName)) {
      return this.nextByStyle.get(styleName)!;
    }
    return styleStart;
  }

  /** Records where the list ended, so that a later list can continue it. */
  finish(list: XmlElement, styleName: string | undefined, next: number): void {
    const id = list.attrs['xml:id'] ?? list.attrs['text:id'];
    if (id) this.nextById.set(id, next);
    const continued = list.attrs['text:continue-list'];
    if (continued) this.nextById.set(continued, next);
    if (styleName) this.nextByStyle.set(styleName, next);
  }
}
