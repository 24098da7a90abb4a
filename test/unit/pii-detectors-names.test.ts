import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findAddresses } from '../../src/transform/pii/detectors/addresses.ts';
import { isAcronym, isOrganisationWord, nameAt } from '../../src/transform/pii/detectors/name-tokens.ts';
import { findPeople } from '../../src/transform/pii/detectors/people.ts';
import { findPlaces } from '../../src/transform/pii/detectors/places.ts';
import { loadPlaces } from '../../src/transform/pii/gazetteer/places.ts';
import { type Candidate, chooseSpans } from '../../src/transform/pii/spans.ts';
import { seeded, shown } from '../helpers/pii.ts';

/**
 * People and places of `aggressive` mode (README, PII redaction): context rules and gazetteers.
 * Names are drawn from lists written here: given names of the stdlib lists beside family names
 * that are no English word, and invented names with no gazetteer behind them, which only context
 * can find. A detector proposes overlapping candidates (a name and each of its words), which the
 * pipeline settles with chooseSpans: the tests read them the same way.
 */

const rand = seeded(81);
const given = ['Rosalind', 'Theodora', 'Benedikt', 'Ingrid', 'Marisol', 'Desmond', 'Leopold', 'Octavia'];
const family = ['Pemberton', 'Adeyinka', 'Sandqvist', 'Castellano', 'Hargreaves', 'Thistlewood', 'Valcourt'];
/** Words no gazetteer knows: a name made of them is found by its context or not at all. */
const invented = () =>
  `${rand.pick(['Zor', 'Quel', 'Vand', 'Mir', 'Tal'])}${rand.pick(['vath', 'inor', 'essa', 'ubek', 'orin'])}`;
const person = () => `${rand.pick(given)} ${rand.pick(family)}`;
const redacted = (text: string, candidates: Candidate[]) => shown(text, chooseSpans(candidates));
const people = (text: string) => redacted(text, findPeople(text));
const places = loadPlaces();
const isPlace = (name: string) => places.known.has(name) || places.minor.has(name);

describe('name tokens', () => {
  it("knows organisations' and places' words, acronyms and initials", () => {
    for (const word of ['Ltd', 'GmbH', 'plc', 'University', 'Hospital', 'Council', 'Street', 'Analytics'])
      assert.equal(isOrganisationWord(word), true, word);
    for (const word of ['Pemberton', 'Rosalind', 'Bridge'])
      assert.equal(isOrganisationWord(word), false, word);
    for (const word of ['NSW', 'URI', 'MAC']) assert.equal(isAcronym(word), true, word);
    for (const word of ['M.', 'A', 'Adeyinka']) assert.equal(isAcronym(word), false, word);
  });

  it('reads the name at an offset: capitalised words, initials, particles, at most four words', () => {
    const cases: [string, number, string | undefined][] = [
      ['to:  Ingrid Sandqvist-Adeyinka wrote', 3, 'Ingrid Sandqvist-Adeyinka'],
      ["cc O'Hargreaves", 2, "O'Hargreaves"],
      ['by Ludovica della Valcourt today', 2, 'Ludovica della Valcourt'],
      ['by R. Castellano', 2, 'R. Castellano'],
      ['by Anna Maria Sofia Beatriz Valcourt', 2, 'Anna Maria Sofia Beatriz'],
      ['by Pemberton Analytics', 2, undefined],
      ['by NASA Mission', 2, undefined],
      ['by lower case', 2, undefined],
    ];
    for (const [text, at, name] of cases) {
      const found = nameAt(text, at);
      assert.equal(found && text.slice(found.start, found.end), name, text);
    }
  });
});

describe('people', () => {
  it('finds a given name with a family name, and every later mention of either', () => {
    for (let i = 0; i < 6; i++) {
      const name = person();
      const [first, last] = name.split(' ');
      const text = `The file went to ${name} on Monday; ${last} signed and ${first} filed it.`;
      assert.deepEqual(
        people(text),
        [
          [name, 'PERSON'],
          [last, 'PERSON'],
          [first, 'PERSON'],
        ],
        text,
      );
    }
  });

  it('finds invented names by their context: titles in five languages, labels, lists, greetings, signatures', () => {
    for (let i = 0; i < 4; i++) {
      const [a, b, c, d] = [invented(), invented(), invented(), invented()];
      const cases: [string, string[]][] = [
        [`The report of Dr. ${a} ${b} is attached.`, [`${a} ${b}`]],
        [`Mrs ${a} called.`, [a]],
        [`Termin mit Herr ${a} am Montag.`, [a]],
        [`Rendez-vous avec Mme ${a} lundi.`, [a]],
        [`Cita con la Sra. ${a} el lunes.`, [a]],
        [`Prepared by: ${a} ${b}\nDate: today`, [`${a} ${b}`]],
        [`Present: ${a} ${b} (chair), ${c} and ${d}\n`, [`${a} ${b}`, c, d]],
        [`Dear ${a},\nthe parcel is late.`, [a]],
        [`Hello Ms ${b}, thanks.`, [b]],
        [`That is all.\nKind regards,\n${a} ${b}\n`, [`${a} ${b}`]],
        [`[09:14] ${a} ${b}: ok, shipping now`, [`${a} ${b}`]],
        [`{"name": "${a} ${b}", "plan": "Pro"}`, [`${a} ${b}`]],
      ];
      for (const [text, names] of cases) {
        assert.deepEqual(
          people(text),
          names.map((n) => [n, 'PERSON']),
          text,
        );
      }
    }
  });

  it('keeps the greeting "Hi" and a title out of the name they stand before', {
    todo: '"hi" is in the given-name lists and no SCOWL word, so "Hi Ms Talinor" reads as given and family name',
  }, () => {
    for (const text of ['Hi Ms Talinor, thanks.', 'Hi Talinor, thanks.'])
      assert.deepEqual(people(text), [['Talinor', 'PERSON']], text);
  });

  it('finds a name that an e-mail address in the same text spells', () => {
    const [a, b] = [invented(), invented()];
    const text = `${a} ${b} <${a.toLowerCase()}.${b.toLowerCase()}@example.org> wrote`;
    assert.deepEqual(people(text), [[`${a} ${b}`, 'PERSON']]);
    const initialled = `${a} ${b} (${a[0]!.toLowerCase()}.${b.toLowerCase()}@example.org)`;
    assert.deepEqual(people(initialled), [[`${a} ${b}`, 'PERSON']]);
  });

  it('takes a lone unambiguous given name as a guess, but not at a sentence start', () => {
    const text = 'The keys are with Octavia now.';
    const found = findPeople(text);
    assert.deepEqual(shown(text, found), [['Octavia', 'PERSON']]);
    assert.ok(
      found[0]!.rank > findPeople('Dr. Octavia Valcourt')[0]!.rank,
      'a guess ranks below a titled name',
    );
    for (const opening of ['Octavia is a font.', 'Done. Octavia is a font.', 'Note:\nOctavia is a font.'])
      assert.deepEqual(people(opening), [], opening);
  });

  it('leaves words that only look like names: English words, companies, acronyms, lone data values', () => {
    for (const text of [
      'Grace periods apply to every invoice.',
      'Will the courier come? May we know?',
      'The Grace Period ends in June.',
      'Invoices from Pemberton Analytics Ltd are due.',
      'Sandqvist Hospital opened a ward.',
      'NASA ESA JAXA met in the hall.',
      '{"name": "Widget", "owner": "Platform"}',
      'Dear customer, your order shipped.',
      'Account name: premium',
    ])
      assert.deepEqual(people(text), [], text);
  });

  it('does not spread a name to a company that starts with it', () => {
    const text = 'Signed: Rosalind Pemberton\nPemberton Garden Supplies sent the plants.';
    assert.deepEqual(people(text), [['Rosalind Pemberton', 'PERSON']]);
  });
});

describe('places', () => {
  it('finds well-known places anywhere, in several scripts and languages', () => {
    for (const place of ['Aberdeen', 'Toronto', 'Kraków', 'Tromsø', 'Umeå', 'Porto', 'Bavaria']) {
      const text = `The team met ${rand.pick(['last week', 'twice', 'again'])}; ${place} was chosen.`;
      assert.deepEqual(shown(text, findPlaces(text, places)), [[place, 'LOCATION']], text);
    }
  });

  it('finds a small town only where the text says a place follows or a region follows it', () => {
    for (const town of ['Skipton', 'Tralee', 'Kilkenny', 'Much Wenlock']) {
      for (const text of [`a cottage in ${town}`, `she drove from ${town} to work`, `${town}, UK`])
        assert.deepEqual(shown(text, findPlaces(text, places)), [[town, 'LOCATION']], text);
      const bare = `${town} said yes.`;
      assert.deepEqual(findPlaces(bare, places), [], bare);
    }
  });

  it('ranks a curated region read whole above a name read in it', () => {
    const text = 'Hiking in West Yorkshire and Aberdeen.';
    const [region, city] = findPlaces(text, places);
    assert.deepEqual(shown(text, [region!, city!]), [
      ['West Yorkshire', 'LOCATION'],
      ['Aberdeen', 'LOCATION'],
    ]);
    assert.ok(region!.rank < city!.rank);
  });

  it('leaves English words, companies, time zones and cited authors', () => {
    for (const text of [
      'Reading the report was Nice.',
      'Mobile phones only.',
      'Aberdeen Office Supplies Ltd invoiced us.',
      'timezone Europe/London',
      'as Lyon et al. showed',
      'as Lyon, et al. showed',
    ])
      assert.deepEqual(findPlaces(text, places), [], text);
  });
});

describe('addresses', () => {
  const addresses = (text: string) => redacted(text, findAddresses(text, isPlace));
  const street = () => rand.pick(['Kingsmead', 'Birchfield', 'Harbourview', 'Old Mill']);

  it('finds street lines, postcodes and towns in the forms of twelve countries', () => {
    const n = () => String(1 + rand.int(240));
    for (let i = 0; i < 3; i++) {
      const lines = [
        `Flat 2, ${n()} ${street()} Road`, // UK
        `${n()} ${street()} Lane`,
        'Leeds LS6 2QT',
        'D02 X285', // Ireland
        `${n()}0 ${street()} Drive`, // US
        'Boulder, CO 80302',
        `${n()} Constitution Avenue NW`,
        'Halifax, NS B3H 4R2', // Canada
        'Manly NSW 2095', // Australia
        `${n()} rue des Acacias`, // France
        '75011 Paris',
        `Lindenallee ${n()}`, // Germany
        `Hauptstraße ${n()}`,
        `Am Markt ${n()}`,
        '10115 Berlin',
        `ul. Kwiatowa ${n()}/2`, // Poland
        '00-950 Warszawa',
        '1100-148 Lisboa', // Portugal
        `Via Garibaldi ${n()}`, // Italy
        `Calle Mayor ${n()}`, // Spain
        `Prinsengracht ${n()}`, // the Netherlands
        `PO Box ${rand.digits(4)}`,
        'Postfach 10 20 30',
        'County Clare',
        'Co. Galway',
      ];
      for (const line of lines) {
        const text = `Send it to ${line}\nThanks`;
        assert.deepEqual(addresses(text), [[line, 'LOCATION']], text);
      }
    }
  });

  it('finds a Dutch postcode, whose letters come before the town', {
    todo: 'the bare-number rule reads "1016 GV" as a number and the word "GV", which is no place, and drops the line',
  }, () => {
    for (const line of ['1016 GV Amsterdam', '3511 LX Utrecht']) {
      const text = `Send it to ${line}\nThanks`;
      assert.deepEqual(addresses(text), [[line, 'LOCATION']], text);
    }
  });

  it('takes a street without a number only before a known town', () => {
    assert.deepEqual(addresses('Tanner Lane, Skipton'), [['Tanner Lane, Skipton', 'LOCATION']]);
    assert.deepEqual(addresses('Tanner Lane, Quelvath'), []);
  });

  it("reads address fields of records, a quoted value whole, and not an identifier's value", () => {
    assert.deepEqual(addresses('{"city": "Tromsø", "postcode": "SW1A 1AA"}'), [
      ['Tromsø', 'LOCATION'],
      ['SW1A 1AA', 'LOCATION'],
    ]);
    assert.deepEqual(addresses('"street": "No. 9, Lane 3, Harbour East Road"'), [
      ['No. 9, Lane 3, Harbour East Road', 'LOCATION'],
    ]);
    for (const text of ['region: eu-west-1', 'city: null', 'state = var.region', 'country: n/a', 'zip: -'])
      assert.deepEqual(addresses(text), [], text);
  });

  it('leaves numbers before words that are no place, councils and companies', () => {
    for (const text of [
      'We sold 5000 Widgets last year.',
      'Invoice 2024 Total due',
      'County Council meeting',
      'Acme Co. Ltd',
      'Room 101 is free.',
    ])
      assert.deepEqual(addresses(text), [], text);
  });
});
