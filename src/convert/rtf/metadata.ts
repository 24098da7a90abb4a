/** `\info` sub-destinations kept as metadata, by the metadata key they fill. */
export const INFO_TEXT_KEYS: ReadonlyMap<string, string> = new Map([
  ['title', 'title'],
  ['subject', 'subject'],
  ['author', 'author'],
  ['keywords', 'keywords'],
  ['doccomm', 'description'],
  ['operator', 'lastModifiedBy'],
]);

/** `\info` date sub-destinations, by metadata key. */
export const INFO_DATE_KEYS: ReadonlyMap<string, string> = new Map([
  ['creatim', 'created'],
  ['revtim', 'modified'],
]);

/** The parts of an `\info` date (`\yrN \moN \dyN \hrN \minN \secN`). */
export interface DateParts {
  yr: number;
  mo: number;
  dy: number;
  hr: number;
  min: number;
  sec: number;
}

export function emptyDate(): DateParts {
  return { yr: 0, mo: 0, dy: 0, hr: 0, min: 0, sec: 0 };
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** ISO 8601 local date-time (RTF dates carry no zone), or undefined when incomplete. */
export function isoDate(d: DateParts): string | undefined {
  if (d.yr < 1 || d.yr > 9999 || d.mo < 1 || d.mo > 12 || d.dy < 1 || d.dy > 31) return undefined;
  if (d.hr > 23 || d.min > 59 || d.sec > 59 || d.hr < 0 || d.min < 0 || d.sec < 0) return undefined;
  return `${String(d.yr).padStart(4, '0')}-${pad(d.mo)}-${pad(d.dy)}T${pad(d.hr)}:${pad(d.min)}:${pad(d.sec)}`;
}

/** Primary language of a Windows LCID (`\deflangN`) → BCP 47 language subtag. */
const LANGUAGES: Readonly<Record<number, string>> = {
  1: 'ar',
  2: 'bg',
  4: 'zh',
  5: 'cs',
  6: 'da',
  7: 'de',
  8: 'el',
  9: 'en',
  10: 'es',
  11: 'fi',
  12: 'fr',
  13: 'he',
  14: 'hu',
  16: 'it',
  17: 'ja',
  18: 'ko',
  19: 'nl',
  20: 'no',
  21: 'pl',
  22: 'pt',
  24: 'ro',
  25: 'ru',
  26: 'hr',
  27: 'sk',
  29: 'sv',
  30: 'th',
  31: 'tr',
  33: 'id',
  34: 'uk',
  36: 'sl',
  42: 'vi',
  57: 'hi',
};

export function lcidLanguage(lcid: number): string | undefined {
  return LANGUAGES[lcid & 0x3ff];
}
