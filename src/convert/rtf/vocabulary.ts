/** Control words the interpreter treats by name. */

/** Destinations never shown: tables of no use here, page furniture, hidden entries, alternates. */
export const SKIPPED = new Set([
  'colortbl',
  'filetbl',
  'revtbl',
  'header',
  'headerl',
  'headerr',
  'headerf',
  'footer',
  'footerl',
  'footerr',
  'footerf',
  'xe',
  'tc',
  'tcn',
  'bkmkend',
  'nonshppict',
  'shprslt',
  'nonesttables',
  'template',
  'do',
  'objdata',
  'objclass',
  'private',
  'txe',
  'rxe',
  'bxe',
  'pntxta',
  'pntxtb',
  'leveltext',
  'levelnumbers',
  'listname',
  'lfolevel',
  'themedata',
  'colorschememapping',
  'datastore',
  'annotation',
]);

/** Characters of control words. */
export const SPECIAL_CHARS: ReadonlyMap<string, string> = new Map([
  ['emdash', '\u2014'],
  ['endash', '\u2013'],
  ['emspace', '\u2003'],
  ['enspace', '\u2002'],
  ['qmspace', '\u2005'],
  ['bullet', '\u2022'],
  ['lquote', '\u2018'],
  ['rquote', '\u2019'],
  ['ldblquote', '\u201c'],
  ['rdblquote', '\u201d'],
  ['tab', '\t'],
  ['zwj', '\u200d'],
  ['zwnj', '\u200c'],
]);

/** Words that end a `\uN` fallback instead of being skipped as part of it. */
export const STRUCTURAL = new Set(['par', 'pard', 'cell', 'row', 'nestcell', 'nestrow', 'line', 'sect']);
