/**
 * Words as the offline methods compare them: property names (`invoiceNumber`, `unit_price`),
 * labels (`Invoice No.`) and sentences all reduce to the same lowercase, singular tokens.
 */

/** Function words: they carry no topic and make labels look alike ("Date of issue", "Issue date"). */
const STOP_WORDS = new Set(
  (
    'a an and are as at be been by for from has have in into is it its of on or our that the their ' +
    'this to was were will with your you we us i he she they them his her which who whom what when ' +
    'where how than then so such not no but if do does did can could should would may might also ' +
    'there these those any all each per via'
  ).split(' '),
);

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

/** `invoiceNumber`, `invoice_number` and `Invoice-Number` alike: "invoice number". */
function splitIdentifiers(text: string): string {
  return text
    .replace(/([\p{Ll}\d])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/[_\-./]+/g, ' ');
}

/** A crude singular: enough to make "items" meet "item" and "addresses" meet "address". */
export function singular(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && /(?:ss|x|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !/(?:ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** Lowercase word tokens (letters and digits), identifiers split, in order. */
export function tokens(text: string): string[] {
  return (
    splitIdentifiers(text)
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** The tokens that carry meaning: singular, without function words. */
export function contentWords(text: string): string[] {
  return tokens(text)
    .filter((w) => !isStopWord(w))
    .map(singular);
}
