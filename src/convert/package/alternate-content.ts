import { childrenNamed, type XmlElement } from './xml.ts';

/**
 * Namespaces (by their customary prefix, which is what `Requires` names) whose markup the
 * walker reads. A Choice needing anything else falls back, so each text box or picture is read
 * from exactly one branch and never twice.
 */
const UNDERSTOOD = new Set([
  'w',
  'r',
  'a',
  'pic',
  'wp',
  'wps',
  'wpg',
  'wpc',
  'wp14',
  'w14',
  'w15',
  'a14',
  'm',
  'p',
  'p14',
  'v',
  'o',
  'w10',
]);

/** The branch of an mc:AlternateContent to read: the first understood Choice, else the Fallback. */
export function chooseAlternate(el: XmlElement): XmlElement | undefined {
  for (const choice of childrenNamed(el, 'mc:Choice')) {
    const requires = (choice.attrs.Requires ?? '').split(/\s+/).filter(Boolean);
    if (requires.every((p) => UNDERSTOOD.has(p))) return choice;
  }
  return childrenNamed(el, 'mc:Fallback')[0];
}
