import { sniffDelimiter, sniffRecords } from '../convert/csv/sniff-dialect.ts';

/** What a text upload that names no format looks like, from its first bytes. */
export type TextKind = 'html' | 'json' | 'xml' | 'csv' | 'txt';

const HTML_START =
  /^(?:\s|<!--[\s\S]*?-->)*<(?:!doctype\s+html|html|head|body|meta|title|div|p|table|h[1-6]|article|section|main|span|a|ul|ol|br|img|link|script|style|form|header|nav)[\s/>]/i;

const XML_DECLARATION = /^\s*<\?xml[^>]*\?>/;

/** An object, or an array of values: `[` then a letter is a Markdown link, not JSON. */
const JSON_START = /^\s*(?:\{\s*(?:"|\})|\[\s*(?:["{[\]\d-]|true|false|null))/;

/** A declaration or a root element of a name HTML does not use. */
const XML_START = /^(?:\s|<!--[\s\S]*?-->)*<(?:\?xml[\s?]|!DOCTYPE\s+(?!html)|[A-Za-z_][\w.:-]*[\s>/])/;

/**
 * Records that split alike on one delimiter make a table; prose rarely does. Three records at
 * least (a header and two rows), since two lines of prose with a comma each would pass.
 */
const MIN_RECORDS = 3;
const MIN_CONSISTENCY = 0.9;

/**
 * Decide by content what an unnamed text upload is. `head` is its first characters;
 * `complete` says whether it is the whole file (else its last line may be cut short).
 */
export function classifyText(head: string, complete: boolean): TextKind {
  const text = head.replace(/^\uFEFF/, '');
  // XHTML starts as XML does: after its declaration it is an HTML page like any other.
  if (HTML_START.test(text.replace(XML_DECLARATION, ''))) return 'html';
  if (JSON_START.test(text)) return 'json';
  if (XML_START.test(text)) return 'xml';
  const whole = complete ? text : text.slice(0, Math.max(0, text.lastIndexOf('\n')));
  const delimiter = sniffDelimiter(whole);
  const { records, fields, consistency } = sniffRecords(whole, delimiter);
  if (records >= MIN_RECORDS && fields >= 2 && consistency >= MIN_CONSISTENCY) return 'csv';
  return 'txt';
}
