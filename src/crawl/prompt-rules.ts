import { countries, languages } from 'countries-list';
import { type CrawlOptions, crawlFormats, crawlOptionsSchema } from './crawl-options.ts';

/**
 * The offline reader of a params-preview prompt, used when no model is configured or the model
 * gives nothing usable. It reads English by small grammar rules rather than one pattern per
 * sentence:
 *
 * 1. The prompt is normalised (number words to digits, `1,000` and `10k` to numbers) and cut into
 *    clauses at punctuation and at `and`, `or`, `but`, `then`.
 * 2. In each clause, option detectors (sitemap, query parameters, duplicates, subdomains, external
 *    links, the whole domain, delay, depth, limit, formats, language and country) take the words
 *    they recognise, each with the clause's negation ("don't follow external links").
 * 3. What is left is read for sections: an include word (`only`, `just`, `crawl`, ...) or an
 *    exclude word (`skip`, `except`, `don't crawl`, ...) followed by a path or a noun phrase
 *    ("the pricing pages"). A clause with no verb of its own takes the previous one's when joined
 *    by `and`, `or` or a comma ("skip /careers and /jobs"; "as markdown and html").
 * 4. A section's name is looked up among the site's own path segments (plural or singular, an
 *    abbreviation such as docs for documentation, at any depth such as /en/blog); otherwise the
 *    name itself becomes the path.
 */

type PathMode = 'include' | 'exclude';
type Mode = PathMode | 'format' | undefined;
type Format = (typeof crawlFormats)[number];

interface Clause {
  text: string;
  /** Whether the clause continues the previous one's verb ("and", "or", a comma). */
  joined: boolean;
}

interface Reading {
  options: CrawlOptions;
  include: string[];
  exclude: string[];
  formats: Format[];
  /** Whether the first format was named as an addition ("with screenshots"), so markdown stays. */
  additive: boolean | undefined;
  languages: string[];
  country: string | undefined;
}

// ----- Normalising -----

const UNITS: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  dozen: 12,
};
const TENS: Record<string, number> = {
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};
const SCALES: Record<string, number> = { hundred: 100, thousand: 1000 };
const NUMBER_WORD = new RegExp(
  `\\b(?:a\\s+(?=(?:${Object.keys(SCALES).join('|')}|dozen)\\b))?(?:(?:${[...Object.keys(UNITS), ...Object.keys(TENS), ...Object.keys(SCALES)].join('|')})\\b\\s*)+`,
  'g',
);

/** "two hundred fifty" → 250, "a thousand" → 1000. */
function numberFromWords(phrase: string): number {
  let total = 0;
  let current = 0;
  for (const word of phrase.split(/\s+/)) {
    if (word === 'a' || word === '') continue;
    if (word in UNITS) current += UNITS[word]!;
    else if (word in TENS) current += TENS[word]!;
    else {
      total += Math.max(current, 1) * SCALES[word]!;
      current = 0;
    }
  }
  return total + current;
}

function normalise(prompt: string): string {
  return (
    prompt
      .toLowerCase()
      .replace(/[‘’]/g, "'")
      .replace(/[“”]/g, '"')
      .replace(/\bhalf (?:a|an) /g, '0.5 ')
      .replace(/\b(?:a|an) (second|minute)\b/g, '1 $1')
      .replace(NUMBER_WORD, (words) => ` ${numberFromWords(words.trim())} `)
      .replace(/(\d),(\d{3})\b/g, '$1$2')
      .replace(/\b(\d+(?:\.\d+)?)k\b/g, (_, n: string) => String(Number(n) * 1000))
      // A hyphen between words joins them as a space ("German-language", "two-level"); in a path it stays.
      .replace(/(^|\s)([a-z]+(?:-[a-z]+)+)(?=\s|[,.;:!?]|$)/g, (_, lead: string, word: string) =>
        /^(?:de|re|sub|off|near|third|e)-/.test(word)
          ? `${lead}${word}`
          : `${lead}${word.replace(/-/g, ' ')}`,
      )
      .replace(/\bdon't|\bdont\b|\bdo not\b/g, 'not')
  );
}

function clauses(text: string): Clause[] {
  const out: Clause[] = [];
  const splitter = /\s*(?:([.;!?:](?=\s|$)|\n)|(,)|\b(and|or|plus)\b|\b(but|then|also|while)\b)\s*/g;
  let start = 0;
  let joined = false;
  for (const match of text.matchAll(splitter)) {
    out.push({ text: text.slice(start, match.index).trim(), joined });
    joined = match[2] !== undefined || match[3] !== undefined;
    start = match.index + match[0].length;
  }
  out.push({ text: text.slice(start).trim(), joined });
  return out.filter((c) => c.text !== '' || c.joined);
}

// ----- Detectors: each takes the words it reads out of the clause -----

const NEGATION =
  /\b(?:not|no|never|without|avoid|skip|exclude|excluding|disallow|disable|stay (?:on|within|in)|only on|same)\b/;

/** A clause with the words a detector read blanked out, so the section reader does not see them again. */
class Words {
  text: string;
  constructor(text: string) {
    this.text = text;
  }

  take(pattern: RegExp): RegExpExecArray | undefined {
    const match = pattern.exec(this.text);
    if (!match) return undefined;
    this.text = `${this.text.slice(0, match.index)} ${this.text.slice(match.index + match[0].length)}`;
    return match;
  }
}

const NUM = '(\\d+(?:\\.\\d+)?)';

function readSitemap(words: Words, r: Reading): boolean {
  const match = words.take(/^.*\bsite ?maps?\b(?:\s+(?:urls?|pages?|links?|entries))?(?:\s+(only))?/);
  if (!match) return false;
  const before = match[0];
  if (/\b(?:only|just|solely|exclusively|nothing but)\b/.test(before) && !/\bnot only\b/.test(before))
    r.options.sitemap = 'only';
  else if (/\b(?:not|no|never|without|ignore|ignoring|skip|skipping|bypass|disable)\b/.test(before))
    r.options.sitemap = 'skip';
  else r.options.sitemap = 'include';
  words.text = '';
  return true;
}

function readQuery(words: Words, r: Reading): boolean {
  const match = words.take(/^.*\b(?:query|url)\s*(?:parameters?|params?|strings?|args?|arguments?)\b.*$/);
  if (!match) return false;
  r.options.ignoreQueryParameters = !(
    /\b(?:keep|respect|preserve|distinct|separate|different pages)\b/.test(match[0]) ||
    /\bnot (?:ignore|strip|drop|remove)\b/.test(match[0])
  );
  return true;
}

function readDuplicates(words: Words, r: Reading): boolean {
  const match = words.take(
    /^.*\b(?:de-?dup(?:e|licate|licated|lication|ing)?s?|remove duplicates?|duplicates?|near-duplicates?|similar urls?|collapse similar)\b.*$/,
  );
  if (!match) return false;
  r.options.deduplicateSimilarURLs = !/\b(?:keep|allow|include|not (?:de-?dup|remove|collapse))\w*/.test(
    match[0],
  );
  return true;
}

function readSubdomains(words: Words, r: Reading): boolean {
  const before = words.text;
  const match = words.take(/\bsub-?domains?\b/);
  if (!match) return false;
  r.options.allowSubdomains = !NEGATION.test(before.slice(0, match.index));
  return true;
}

function readExternal(words: Words, r: Reading): boolean {
  const before = words.text;
  const match = words.take(
    /\b(?:(?:external|outbound|outgoing|off-?site|third-party|third party)\s+(?:links?|sites?|websites?|domains?|pages?|urls?)|(?:links?\s+)?(?:to|onto|on)\s+other\s+(?:sites?|websites?|domains?)|leave the (?:site|domain|website))\b/,
  );
  if (!match) return false;
  r.options.allowExternalLinks = !NEGATION.test(before.slice(0, match.index));
  return true;
}

function readWholeDomain(words: Words, r: Reading): boolean {
  const before = words.text;
  const match = words.take(
    /\b(?:(?:the\s+)?(?:whole|entire|full|complete)\s+(?:domain|site|website|web site)|all of the (?:domain|site|website)|everything|every page|all (?:the )?pages)\b(?!\s+(?:under|in|below|within|of|from)\b)/,
  );
  if (!match) return false;
  r.options.crawlEntireDomain = !/\b(?:not|no|never)\b/.test(before.slice(0, match.index));
  return true;
}

const DELAY_CUE =
  /\b(?:wait|waiting|delay|delays|pause|pausing|sleep|between|throttle|interval|gap|every|apart)\b/;

function readDelay(words: Words, r: Reading): boolean {
  if (!DELAY_CUE.test(words.text)) return false;
  const timed = words.take(new RegExp(`${NUM}\\s*(ms|milliseconds?|s|secs?|seconds?|minutes?|mins?)\\b`));
  const bare = timed ? undefined : words.take(new RegExp(`\\bdelay(?:\\s+of)?\\s+${NUM}\\b`));
  const match = timed ?? bare;
  if (!match) return false;
  const unit = timed?.[2] ?? 's';
  const factor = unit.startsWith('m') && unit !== 'ms' && !unit.startsWith('milli') ? 60 : 1;
  const seconds = Number(match[1]) * factor * (unit === 'ms' || unit.startsWith('milli') ? 0.001 : 1);
  r.options.delay = Math.min(3_600, seconds);
  words.take(DELAY_CUE);
  return true;
}

function readDepth(words: Words, r: Reading): boolean {
  const match =
    words.take(/\b(?:no|not) deeper than (\d+)\b(?:\s+(?:levels?|hops?|clicks?))?/) ??
    words.take(/\b(?:max(?:imum)?\s+)?depth(?:\s+(?:of|limit(?:\s+of)?|to|at))?\s*[:=]?\s*(\d+)\b/) ??
    words.take(
      /\b(\d+)\s+(?:(?:levels?|layers?|hops?|clicks?)(?:\s+(?:deep|down|away|of depth))?|(?:links?\s+)?(?:deep|away))\b(?:\s+(?:from|off)\s+(?:the\s+)?(?:start|home|root|landing|entry|first)\s*(?:page|url)?)?/,
    );
  if (!match) return false;
  r.options.maxDiscoveryDepth = Math.min(100, Number(match[1]));
  return true;
}

const PAGE_NOUN = '(?:pages?|urls?|documents?|results?|items?|posts?|articles?|entries)';
const LIMIT_CUE =
  '(?:up to|at most|no more than|not more than|more than|max(?:imum)?(?: of)?|limit(?:ed)?(?: (?:it|the crawl|crawling))?(?: to| at| of)?|cap(?:ped)?(?: it)?(?: at)?|first|stop after|(?:a )?total of|fewer than|less than|under|only|just|around|about|roughly)';

function readLimit(words: Words, r: Reading): boolean {
  const match =
    words.take(
      new RegExp(`\\b(?:${LIMIT_CUE}\\s+)?(\\d+)\\s+${PAGE_NOUN}\\b(?:\\s+(?:max(?:imum)?|at most|tops))?`),
    ) ??
    words.take(
      new RegExp(`\\b${LIMIT_CUE.replace('|only|just|around|about|roughly', '')}\\s+(\\d+)\\b(?!\\.\\d)`),
    ) ??
    words.take(/\b(\d+)\s+(?:max(?:imum)?|tops)\b/);
  if (!match) return false;
  const strict = /\b(?:fewer than|less than|under)\b/.test(match[0]);
  const limit = Math.round(Number(match[1])) - (strict ? 1 : 0);
  if (limit < 1) return false;
  r.options.limit = Math.min(100_000, limit);
  return true;
}

const FORMAT_WORDS: [RegExp, Format, boolean][] = [
  // [pattern, format, whether the word also means something else, so needs a format cue]
  [/\braw ?html\b|\braw (?:source|markup)\b/, 'rawHtml', false],
  [/\bmarkdown\b|\bmd\b/, 'markdown', false],
  [/\bhtml\b/, 'html', false],
  [/\b(?:full page )?(?:screen ?shots?|screen captures?)\b/, 'screenshot', false],
  [/\bsummar(?:y|ies)\b/, 'summary', false],
  [/\blinks\b/, 'links', true],
  [/\bimages\b/, 'images', true],
];
const FORMAT_CUE =
  /\b(?:as|in|formats?|output|return|returning|extract|collect|export|save|with|plus|including)\b/;
const ADDITIVE = /\b(?:with|plus|also|including|along with|as well as|and)\s+(?:[a-z]+\s+){0,2}$/;

function readFormats(words: Words, r: Reading, inherited: boolean): boolean {
  const cued =
    inherited || FORMAT_CUE.test(words.text) || FORMAT_WORDS.some(([p, , a]) => !a && p.test(words.text));
  const named: [number, Format, string][] = [];
  const text = words.text;
  // Taken in order, so that "raw html" is not read as html too.
  for (const [pattern, format, ambiguous] of FORMAT_WORDS) {
    if (ambiguous && !cued) continue;
    const match = words.take(pattern);
    if (!match) continue;
    const before = text.slice(0, text.indexOf(match[0]));
    if (/\b(?:no|not|without|skip|never)\b(?:\s+\w+)?\s*$/.test(before)) continue;
    named.push([before.length, format, before]);
  }
  named.sort((a, b) => a[0] - b[0]);
  for (const [, format, before] of named) {
    r.additive ??= ADDITIVE.test(before);
    if (!r.formats.includes(format)) r.formats.push(format);
  }
  if (named.length === 0) return false;
  words.take(/\b(?:as|in|with|return|output|formats?)\b(?:\s+(?:both|the))?(?=\s*(?:$|format))/);
  words.take(/\bformats?\b/);
  return true;
}

/** English language and country names, for "docs in German" and "as seen from Germany". */
const englishName = (() => {
  const names = new Intl.DisplayNames(['en'], { type: 'language' });
  const out = new Map<string, string>();
  for (const [code, language] of Object.entries(languages)) {
    for (const name of [names.of(code), ...language.name.split(' / ')]) {
      if (name && name.length >= 4 && !name.includes(' ')) out.set(name.toLowerCase(), code);
    }
  }
  return out;
})();
const countryName = (() => {
  const names = new Intl.DisplayNames(['en'], { type: 'region' });
  const out = new Map<string, string>([
    ['the us', 'US'],
    ['the usa', 'US'],
    ['the united states', 'US'],
    ['america', 'US'],
    ['the uk', 'GB'],
    ['britain', 'GB'],
    ['great britain', 'GB'],
    ['the united kingdom', 'GB'],
  ]);
  for (const [code, country] of Object.entries(countries)) {
    for (const name of [names.of(code), country.name]) if (name) out.set(name.toLowerCase(), code);
  }
  return out;
})();
const alternation = (names: Iterable<string>) =>
  [...names]
    .sort((a, b) => b.length - a.length)
    .map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('|');
const LANGUAGE = new RegExp(
  `(?:\\b(?:in|into)\\s+)?\\b(${alternation(englishName.keys())})\\b(?:\\s+(?:language|speaking|version|versions|translation|edition))?`,
);
const COUNTRY = new RegExp(
  `\\b(?:as seen from|seen from|from|in|located in|based in|country)\\s+(${alternation(countryName.keys())})\\b`,
);

function readPlace(words: Words, r: Reading): boolean {
  let found = false;
  for (let country = words.take(COUNTRY); country; country = words.take(COUNTRY)) {
    r.country = countryName.get(country[1]!);
    found = true;
  }
  for (let language = words.take(LANGUAGE); language; language = words.take(LANGUAGE)) {
    const code = englishName.get(language[1]!)!;
    if (!r.languages.includes(code)) r.languages.push(code);
    found = true;
  }
  return found;
}

// ----- Sections: include and exclude paths -----

const INCLUDE_WORDS =
  'nothing but|everything (?:under|in|below|within)|limited to|limit (?:the crawl |it |crawling )?to|restrict(?:ed)? (?:the crawl |it )?to|focus(?:ing)? on|stay (?:with)?in|stick to|only|just|solely|exclusively|crawl|scrape|index|get me|get|fetch|grab|give me|download|collect|include|within';
const EXCLUDE_WORDS =
  'except(?: for)?|excluding|exclude|skip(?:ping)?|ignor(?:e|ing)|avoid(?:ing)?|without|leave out|leaving out|omit(?:ting)?|other than|apart from|minus|but not|not|no|never';
const TRIGGER = new RegExp(`\\b(?:(${EXCLUDE_WORDS})|(${INCLUDE_WORDS}))\\b`, 'g');
const POSTFIX_ONLY = /^(.*\S)\s+(?:only|exclusively)\s*$/;

/** Words that never name a section: determiners, pronouns, fillers and the verbs left around a detector's words. */
const STOPWORDS = new Set(
  (
    'the a an all any our their its this that these those every each of on in under below beneath from at to for me us ' +
    'my anything everything something stuff please i we you it them things site website domain web home homepage start ' +
    's too also including as well with containing matching named called want would like can could follow go use keep stop wait treat make do let be is are see'
  ).split(' '),
);
/** Nouns that say "pages of" a section ("the pricing pages"), dropped when a name is left before them. */
const GENERIC = new Set(
  'page pages section sections area areas part parts folder folders directory directories subfolder subfolders subdirectory path paths url urls link links content post posts article articles listing listings entries entry board'.split(
    ' ',
  ),
);
const ALWAYS_GENERIC = new Set(
  'page pages section sections area part parts folder directory subfolder subdirectory path paths url urls content'.split(
    ' ',
  ),
);

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const under = (path: string) => `^${escapeRegex(path)}(?:/.*)?$`;

/** The site's own paths (same host, leading "www." aside), as segment lists. */
function sitePaths(start: string, site: readonly string[]): string[][] {
  const host = (u: URL) => u.hostname.replace(/^www\./, '');
  let origin: string;
  try {
    origin = host(new URL(start));
  } catch {
    return [];
  }
  const out: string[][] = [];
  for (const address of site) {
    try {
      const url = new URL(address);
      if (host(url) !== origin) continue;
      const segments = url.pathname
        .split('/')
        .filter(Boolean)
        .map((s) => decodeURIComponent(s).toLowerCase());
      if (segments.length > 0) out.push(segments);
    } catch {}
  }
  return out;
}

const singular = (w: string) => w.replace(/(?:ies)$/, 'y').replace(/(?<=[^s])s$/, '');

/** How well a site segment stands for a name: 4 equal, 3 plural or singular, 2 a word of it, 1 an abbreviation. */
function closeness(segment: string, name: string): number {
  if (segment === name) return 4;
  if (singular(segment) === singular(name)) return 3;
  if (segment.startsWith(`${name}-`) || segment.startsWith(`${name}_`)) return 2;
  const a = singular(name);
  const b = singular(segment);
  if (a.length >= 3 && b.length >= 3 && (b.startsWith(a) || a.startsWith(b))) return 1;
  return 0;
}

/** The site's path prefixes a name stands for: the closest matches, at their shallowest depth. */
function siteSections(name: string, paths: readonly string[][]): string[] {
  let best = 0;
  let depth = Infinity;
  const found = new Set<string>();
  for (const segments of paths) {
    segments.forEach((segment, i) => {
      const score = closeness(segment, name);
      if (score === 0 || score < best || (score === best && i > depth)) return;
      if (score > best || i < depth) found.clear();
      best = score;
      depth = i;
      found.add(`/${segments.slice(0, i + 1).join('/')}`);
    });
  }
  return [...found];
}

/** The path regexes an object phrase names ("anything under /careers", "the pricing pages"). */
function sectionPatterns(phrase: string, paths: readonly string[][]): string[] {
  const literals = [...phrase.matchAll(/(?:^|\s)(?:https?:\/\/[^/\s]+)?(\/[\w\-.~%/*]*)/g)].map((m) =>
    m[1]!.replace(/[/*]+$/, ''),
  );
  if (literals.length > 0) return literals.map((p) => (p === '' ? '^/.*$' : under(p)));
  let words = phrase
    .replace(/[^a-z0-9\s-]/g, ' ')
    .split(/\s+/)
    .filter((w) => w !== '' && !STOPWORDS.has(w) && !/^\d+$/.test(w));
  words = words.filter((w) => !ALWAYS_GENERIC.has(w));
  while (words.length > 1 && GENERIC.has(words.at(-1)!)) words.pop();
  if (words.length === 0 || words.length > 3) return [];
  for (const name of [words.join('-'), ...words]) {
    const found = siteSections(name, paths);
    if (found.length > 0) return found.map(under);
  }
  return [under(`/${words.join('-')}`)];
}

/** Include and exclude sections in what the detectors left of a clause; the clause's path verb. */
function readSections(
  text: string,
  inherited: Mode,
  r: Reading,
  paths: readonly string[][],
): PathMode | undefined {
  const parts: [PathMode | undefined, string][] = [];
  let mode: PathMode | undefined = inherited === 'include' || inherited === 'exclude' ? inherited : undefined;
  let start = 0;
  let afterExclude = false;
  for (const match of text.matchAll(TRIGGER)) {
    const between = text.slice(start, match.index);
    parts.push([mode, between]);
    // "not crawl", "never include": an include verb right after an exclude word excludes.
    mode = match[1] || (afterExclude && between.trim() === '') ? 'exclude' : 'include';
    afterExclude = mode === 'exclude';
    start = match.index + match[0].length;
  }
  parts.push([mode, text.slice(start)]);
  // "product pages only": an "only" that ends the clause includes the words before it.
  const postfix = POSTFIX_ONLY.exec(text.trim());
  if (postfix) parts.splice(0, parts.length, ['include', postfix[1]!]);
  for (const [which, phrase] of parts) {
    if (!which) continue;
    const patterns = sectionPatterns(phrase, paths);
    const list = which === 'include' ? r.include : r.exclude;
    for (const p of patterns) if (!list.includes(p)) list.push(p);
  }
  return mode;
}

// ----- The reader -----

/**
 * The crawl options a prompt implies, read by rules, or undefined when the rules read nothing in
 * it. `site` is the site's URLs (sitemap and start page), used to name sections by their real
 * paths. The answer always validates against the crawl option schema.
 */
export function readPromptByRules(
  url: string,
  prompt: string,
  site: readonly string[],
): CrawlOptions | undefined {
  const r: Reading = {
    options: {},
    include: [],
    exclude: [],
    formats: [],
    additive: undefined,
    languages: [],
    country: undefined,
  };
  const paths = sitePaths(url, site);
  let previous: Mode;
  for (const clause of clauses(normalise(prompt))) {
    const words = new Words(clause.text);
    const inherited = clause.joined ? previous : undefined;
    let read = false;
    for (const detect of [
      readSitemap,
      readQuery,
      readDuplicates,
      readSubdomains,
      readExternal,
      readWholeDomain,
      readDelay,
      readDepth,
      readLimit,
      readPlace,
    ])
      read = detect(words, r) || read;
    const format = readFormats(words, r, inherited === 'format');
    // An option detector leaves its verbs behind ("stay on this subdomain"), so a clause it read
    // names no section by coordination; the format reader takes its cue words with the formats.
    const section = readSections(words.text, read ? undefined : inherited, r, paths);
    previous = format ? 'format' : section;
  }
  if (r.include.length > 0) r.options.includePaths = r.include.slice(0, 100);
  if (r.exclude.length > 0) r.options.excludePaths = r.exclude.slice(0, 100);
  const scrape: NonNullable<CrawlOptions['scrapeOptions']> = {};
  if (r.formats.length > 0) {
    const formats =
      r.additive && !r.formats.includes('markdown') ? ['markdown' as const, ...r.formats] : r.formats;
    scrape.formats = crawlFormats.filter((f) => formats.includes(f));
  }
  if (r.languages.length > 0 || r.country)
    scrape.location = {
      ...(r.country ? { country: r.country } : {}),
      ...(r.languages.length > 0 ? { languages: r.languages.slice(0, 16) } : {}),
    };
  if (Object.keys(scrape).length > 0) r.options.scrapeOptions = scrape;
  if (Object.keys(r.options).length === 0) return undefined;
  return crawlOptionsSchema.parse(r.options);
}
