import { type Candidate, Rank } from '../spans.ts';
import { isOrganisationWord } from './name-tokens.ts';

const CAP = String.raw`\p{Lu}[\p{L}'’.-]*`;
/** A word of a street's name: capitalised, or an ordinal (5th Ave, 42nd Street). */
const STREET_WORD = String.raw`(?:${CAP}|\d{1,3}(?:st|nd|rd|th))`;
/** Particles inside Romance street names: Calle de Alcalá, Via dei Condotti, Avenida da Liberdade. */
const PARTICLES = String.raw`(?:(?:de|des|du|la|le|les|d'|da|do|dos|das|di|dei|degli|del|della|delle|dello)[ \t]+)*`;
/** Street types written after the name (English) ... */
const STREET_TYPE = `(?:Street|St|Road|Rd|Avenue|Ave|Av|Lane|Ln|Drive|Dr|Court|Ct|Crescent|Cres|Terrace|Place|Pl|Way|Boulevard|Blvd|Close|Gardens|Row|Square|Sq|Highway|Hwy|Parkway|Pkwy|Circle|Cir|Walk|Hill|Grove|Mews|Brae|Wynd|Parade|Esplanade|Quay|Hollow|Trail|Path|Green|Rise|View)`;
/** ... or before it (French, Spanish, Portuguese, Italian, Polish). */
const STREET_PREFIX = String.raw`(?:[Rr]ue|[Aa]venue|[Aa]v\.|[Bb]oulevard|[Bb]d|[Pp]lace|[Cc]hemin|[Aa]llée|[Ii]mpasse|[Qq]uai|[Mm]ontée|[Cc]ours|[Vv]ia|[Vv]iale|[Pp]iazza|[Cc]orso|[Cc]alle|[Aa]venida|[Pp]aseo|[Rr]ua|[Tt]ravessa|[Ll]argo|ul\.|ulica|al\.)`;
/** German, Dutch, Nordic and Central European street words, joined to the name or after it. */
const STREET_SUFFIX = String.raw`(?:straße|strasse|str\.|gasse|weg|allee|platz|ring|damm|ufer|gracht|kade|laan|straat|plein|vej|gade|gatan|vägen|veien|gata)`;
const UNIT = String.raw`(?:(?:Unit|Flat|Apartment|Apt\.?|Suite|Ste\.?|Floor|No\.)[ \t]*[\w/-]+,?[ \t]+)`;
const NUMBER = String.raw`\d+[A-Za-z]?(?:[/-]\d+[A-Za-z]?)?`;

const streetLines = [
  // 221B Baker Street; Unit 6, 31 Beach Road; 17/204 Glenayr Avenue; 7421 Birchwood Court
  // 1600 Pennsylvania Avenue NW (a US quadrant after the type)
  String.raw`${UNIT}?${NUMBER},?[ \t]+(?:${STREET_WORD}[ \t]+){1,4}${STREET_TYPE}\b\.?(?:[ \t]+(?:NW|NE|SW|SE|N|S|E|W)\b)?(?:,[ \t]*(?:Suite|Ste\.?|Unit|Apt\.?|Floor|Fl\.?)[ \t]*\w+)?`,
  // 14 Rue des Lilas; 8 rue Burdeau; 23 Montée de la Grande Côte; 12 avenue Jean Jaurès
  String.raw`${UNIT}?${NUMBER},?[ \t]+${STREET_PREFIX}[ \t]+${PARTICLES}(?:${CAP}[ \t]?){1,4}`,
  // Rua Augusta 154; ul. Długa 12/4; Via Roma 3; Calle de Alcalá 45
  String.raw`${STREET_PREFIX}[ \t]+${PARTICLES}(?:${CAP}[ \t]+${PARTICLES}){1,3}${NUMBER}`,
  // Schönhauser Allee 118; Praterstraße 12; Keizersgracht 452; Vörösmarty tér 7; Andrássy út 25;
  // Karl Johans gate 22; Kongens Nytorv 3 is left to its postcode
  String.raw`(?:${CAP}[ \t]+)?\p{Lu}[\p{L}-]*(?:${STREET_SUFFIX}|[ \t](?:Allee|Platz|Straße|Weg|Gasse|tér|út|utca|ulice|náměstí|gate|gata|gatan|gade|vej|vei|veien|väg|vägen|allé|plads|torg|torget))[ \t]+${NUMBER}`,
  // PO Box 4471; P.O. Box 12; Postfach 10 20 30; Apartado 55
  String.raw`\b(?:P\.?[ \t]?O\.?[ \t]?Box|Post Office Box|GPO Box|Postfach|Apartado|Casilla|Boîte postale)[ \t]+\d+(?:[ \t]\d+)*`,
  // Am Messeplatz 1; Na Příkopě 15; Dock Road (no number: only before a postcode, below)
  String.raw`(?:Am|An|Auf|Im|In der|Na|Pod|U)[ \t]+${CAP}[ \t]+${NUMBER}`,
];

/** Postcodes and what comes with them, country by country. */
const postcodeLines = [
  // UK: Sheffield S1 4FS; Edinburgh EH16 6HX (the town is optional: a UK postcode is distinctive)
  String.raw`(?:(?:${CAP}[ \t]+){0,3})?\b(?:[A-Z]{1,2}\d[A-Z\d]?|GIR)[ \t]?\d[A-Z]{2}\b`,
  // Ireland's Eircode: T12 X6E2
  String.raw`\b[AC-FHKNPRTV-Y]\d{2}[ \t]?[AC-FHKNPRTV-Y\d]{4}\b`,
  // US: Denver, CO 80202; Las Vegas, NV 89134; Laredo, TX
  String.raw`(?:${CAP}[ \t]+){0,2}${CAP},[ \t]+(?:A[KLRZ]|C[AOT]|D[CE]|FL|GA|HI|I[ADLN]|K[SY]|LA|M[ADEINOST]|N[CDEHJMVY]|O[HKR]|PA|RI|S[CD]|T[NX]|UT|V[AT]|W[AIVY])\b(?:[ \t]+\d{5}(?:-\d{4})?)?`,
  // Canada: Ottawa, ON K1M 2C2; Ottawa, Ontario K2P 1Y3
  String.raw`(?:(?:${CAP}[ \t]+){0,2}${CAP},[ \t]+(?:AB|BC|MB|NB|NL|NS|NT|NU|ON|PE|QC|SK|YT|${CAP})[ \t]+)?\b[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z][ \t]?\d[ABCEGHJ-NPRSTV-Z]\d\b`,
  // Australia: Coogee NSW 2034; Bondi Beach NSW 2026
  String.raw`(?:${CAP}[ \t]+){1,3}(?:NSW|VIC|QLD|WA|SA|TAS|ACT|NT)[ \t]+\d{4}\b`,
  // Continental Europe: 10437 Berlin; 75011 Paris; 1016 GD Amsterdam; 80-831 Gdańsk; 110 00 Praha 1;
  // 79108 Freiburg im Breisgau. A bare number and a capitalised word is taken only when the word
  // is a place or the line's street comes just before it (checked below).
  String.raw`\b(?:\d{2}-\d{3}|\d{3}[ \t]\d{2}|\d{4}[ \t]?[A-Z]{2}|\d{4,5})[ \t]+${CAP}(?:[ \t]+(?:im|am|an|der|sur|de|la|\d{1,2}\b|${CAP}))*`,
  // Portugal and Brazil, whose postcodes have a hyphen no date or amount has: 1250-146 Lisboa,
  // 01426-001 São Paulo
  String.raw`\b(?:\d{4}-\d{3}|\d{5}-\d{3})[ \t]+${CAP}(?:[ \t]+(?:de|do|da|dos|das|${CAP}))*`,
];

const STREET = new RegExp(streetLines.join('|'), 'gu');
/**
 * A street named without a house number ("Mill Lane, Hebden Bridge", "Church Road, Little
 * Snoring"): an address line only when a place from the gazetteer follows it after a comma.
 */
const UNNUMBERED_STREET = new RegExp(
  String.raw`(?<![\p{L}\p{N}])(?:${CAP}[ \t]+){1,3}${STREET_TYPE}\b,[ \t]*(${CAP}(?:[ \t]+${CAP}){0,2})`,
  'gu',
);
const POSTCODE = new RegExp(postcodeLines.join('|'), 'gu');
/** Address fields of records: "street": "...", city = ..., postcode: ... */
const FIELD =
  /(?:^|[{,])[ \t]*["']?(?:street|street_?address|address(?:_?line)?\d?|city|town|postcode|postal_?code|zip|zip_?code|state|province|region|country)["']?[ \t]*[:=][ \t]*(?:"([^"\n]{2,80})"|'([^'\n]{2,80})'|([^"'\n,}]{2,60}?))[ \t]*(?=[,}\n]|$)/gim;

/**
 * Address lines: a street with its house number, a postcode with its town, the fields of an
 * address in records, in the forms of the countries whose documents we see most. Parts of one
 * address written on one line ("Unit 6, 31 Beach Road, Coogee NSW 2034") are joined by the
 * caller's merging of neighbouring places.
 */
export function findAddresses(text: string, isPlace: (name: string) => boolean): Candidate[] {
  const out: Candidate[] = [];
  const push = (start: number, end: number) =>
    out.push({ start, end, bucket: 'LOCATION', rank: Rank.address });
  const streetEnds = new Set<number>();
  for (const m of text.matchAll(STREET)) {
    const end = m.index + m[0].replace(/[ \t]+$/, '').length;
    push(m.index, end);
    streetEnds.add(end);
  }
  for (const m of text.matchAll(UNNUMBERED_STREET)) {
    // The longest run of the words after the comma that is a place: "Hebden Bridge" of
    // "Hebden Bridge Town Hall".
    const words = m[1]!.split(/[ \t]+/);
    for (let n = words.length; n > 0; n--) {
      // A full stop after the town ends the sentence.
      const town = words.slice(0, n).join(' ').replace(/\.$/, '');
      if (!isPlace(town)) continue;
      const townStart = m.index + m[0].length - m[1]!.length;
      push(m.index, townStart + town.length);
      break;
    }
  }
  // Irish and British counties as written in addresses: County Cork, Co. Kerry (not "County
  // Council" or "Co. Ltd": the word after must be a name, not an organisation's word).
  for (const m of text.matchAll(/\b(?:County|Co\.)[ \t]+(\p{Lu}\p{Ll}+)/gu))
    if (!isOrganisationWord(m[1]!)) push(m.index, m.index + m[0].length);
  for (const m of text.matchAll(POSTCODE)) {
    const value = m[0].replace(/[ \t]+$/, '');
    const bare = /^\d{4,5}[ \t]+(\p{Lu}[\p{L}'’.-]*)/u.exec(value);
    const afterStreet = [1, 2].some((gap) => streetEnds.has(m.index - gap));
    if (bare && !isPlace(bare[1]!) && !afterStreet) continue;
    push(m.index, m.index + value.length);
  }
  for (const m of text.matchAll(FIELD)) {
    // A quoted value runs to its closing quote, commas and all ("No. 88, Section 4, Zhongxiao
    // East Road"); an unquoted one ends at the next comma, as fields of a record do.
    const value = (m[1] ?? m[2] ?? m[3] ?? '').trim();
    // A value of an address field is written like one: with a capital or a digit, not like an
    // identifier (eu-west-1, var.region) or an empty value.
    if (
      !/[\p{Lu}\d]/u.test(value) ||
      /^(?:null|none|n\/a|-)$/i.test(value) ||
      (/^[\w.-]+$/.test(value) && /[._]/.test(value))
    )
      continue;
    if (/^[a-z][\w-]*\d$/.test(value)) continue;
    const start = m.index + m[0].indexOf(value, m[0].search(/[:=]/));
    push(start, start + value.length);
  }
  return out;
}
