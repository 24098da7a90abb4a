import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { findBankAccounts } from '../../src/transform/pii/detectors/bank-account.ts';
import { findEmails } from '../../src/transform/pii/detectors/email.ts';
import { findIbans } from '../../src/transform/pii/detectors/iban.ts';
import { findPaymentCards, luhnValid } from '../../src/transform/pii/detectors/payment-card.ts';
import { findPhones } from '../../src/transform/pii/detectors/phone.ts';
import { isFictionalUkNumber } from '../../src/transform/pii/detectors/phone-fiction.ts';
import { findUsSsns } from '../../src/transform/pii/detectors/us-ssn.ts';
import { type Seeded, seeded, shown } from '../helpers/pii.ts';

/**
 * The validated-number detectors of `fast` mode (README, PII redaction): e-mail addresses, phone
 * numbers by libphonenumber, IBANs by check digits, cards by network prefix, length and Luhn, US
 * SSNs and ITINs by the issuing rules, bank accounts after a label. Every value is made here:
 * check digits computed by the test, phone numbers from the ranges regulators reserve.
 */

/** A Luhn check digit for `payload` (ISO/IEC 7812-1), computed from the right. */
function luhnDigit(payload: string): string {
  let sum = 0;
  [...payload].reverse().forEach((ch, i) => {
    const d = Number(ch) * (i % 2 === 0 ? 2 : 1);
    sum += d > 9 ? d - 9 : d;
  });
  return String((10 - (sum % 10)) % 10);
}

function card(rand: Seeded, prefix: string, length: number): string {
  const payload = prefix + rand.digits(length - prefix.length - 1);
  return payload + luhnDigit(payload);
}

const grouped = (digits: string, sep: string) => digits.match(/.{1,4}/g)!.join(sep);

/** An IBAN with ISO 13616 check digits: the BBAN, the country's letters as numbers and 00, mod 97. */
function iban(country: string, bban: string): string {
  const numeric = [...`${bban}${country}00`]
    .map((ch) => (/\d/.test(ch) ? ch : String(ch.charCodeAt(0) - 55)))
    .join('');
  const rest = [...numeric].reduce((r, ch) => (r * 10 + Number(ch)) % 97, 0);
  return `${country}${String(98 - rest).padStart(2, '0')}${bban}`;
}

describe('e-mail addresses', () => {
  it('finds generated addresses whole, in prose and in markup', () => {
    const rand = seeded(11);
    for (let i = 0; i < 20; i++) {
      const local = `${rand.from('abcdefghijklmnopqrstuvwxyz', 3 + rand.int(6))}${rand.pick(['', '.', '_', '+', '-'])}${rand.from('abcdefghij0123456789', 2 + rand.int(4))}`;
      const domain = `${rand.from('abcdefghijklmnopqrstuvwxyz', 4 + rand.int(5))}.${rand.pick(['com', 'co.uk', 'de', 'example', 'travel'])}`;
      const address = `${local}@${domain}`;
      for (const text of [`Write to ${address}.`, `<td>${address}</td>`, `(${address})`])
        assert.deepEqual(shown(text, findEmails(text)), [[address, 'EMAIL']], text);
    }
  });

  it('leaves what only looks like one: a URL user and password, a handle, a host without a TLD', () => {
    for (const text of [
      'postgres://svc:hunter2x@db.internal.example',
      'ping @marguerite on chat',
      'root@localhost',
      'user@10.0.0.7',
      'a local part alone@',
      'see @example.com',
      'git@host:org/repo',
    ])
      assert.deepEqual(shown(text, findEmails(text)), [], text);
  });
});

describe('phone numbers', () => {
  it('finds numbers of the ranges reserved for fiction, in each national and international form', () => {
    const rand = seeded(21);
    for (let i = 0; i < 8; i++) {
      const nanp = `${rand.pick(['202', '312', '415', '617', '713'])}-555-01${rand.digits(2)}`;
      const london = `020 7946 0${rand.digits(3)}`;
      const mobile = `07700 900${rand.digits(3)}`;
      const leeds = `+44 113 496 0${rand.digits(3)}`;
      const sydney = `+61 491 570 ${rand.pick(['156', '157', '158', '159', '110'])}`;
      for (const number of [
        nanp,
        `(${nanp.slice(0, 3)}) ${nanp.slice(4)}`,
        `+1 ${nanp}`,
        london,
        mobile,
        leeds,
        sydney,
      ]) {
        const text = `Reach the desk on ${number} after nine.`;
        assert.deepEqual(shown(text, findPhones(text)), [[number, 'PHONE']], text);
      }
    }
  });

  it('validates national numbers in the regions the document or a label points at (FR, DE, AU, IE)', () => {
    const rand = seeded(22);
    for (let i = 0; i < 5; i++) {
      const paris = `01 ${rand.digits(2)} ${rand.digits(2)} ${rand.digits(2)} ${rand.digits(2)}`;
      const berlin = `030 ${rand.digits(8)}`;
      const cases: [string, string][] = [
        [`Tél : ${paris}`, paris],
        [`Telefon ${berlin}`, berlin],
        [`Bureau en France : ${paris}`, paris],
        [`+33 6 1${rand.digits(1)} ${rand.digits(2)} ${rand.digits(2)} ${rand.digits(2)}`, ''],
        [`Mobile 0491 570 ${rand.pick(['156', '157', '158'])}`, ''],
        [`Fax +353 1 ${rand.int(8) + 2}${rand.digits(2)} ${rand.digits(4)}`, ''],
      ];
      for (const [text, expected] of cases) {
        const number = expected || text.slice(text.search(/[+0]/));
        assert.deepEqual(shown(text, findPhones(text)), [[number, 'PHONE']], text);
      }
    }
  });

  it('keeps an extension and a trailing year out of the number, and a bracket before it', () => {
    const cases: [string, string][] = [
      ['+1 202 555 0143 ext 12', '+1 202 555 0143'],
      ['(+44 20 7946 0812)', '+44 20 7946 0812'],
      ['Call 0044 20 7946 0655', '0044 20 7946 0655'],
      ['Call 212-555-0178 2024', '212-555-0178'],
    ];
    for (const [text, number] of cases)
      assert.deepEqual(shown(text, findPhones(text)), [[number, 'PHONE']], text);
  });

  it('keeps a year out of a labelled NANP number', {
    todo: 'under a label the number and the year validate whole as a German number (+49 2125550178 2024)',
  }, () => {
    const text = 'Tel 212-555-0178 2024';
    assert.deepEqual(shown(text, findPhones(text)), [['212-555-0178', 'PHONE']]);
  });

  it('leaves dates, versions, IP addresses, an ISBN and unlabelled digit runs', () => {
    for (const text of [
      'on 2024-03-15 we met',
      'dated 15/03/2024 and 03.11.2025',
      'release v10.4.22 and 1.2.3.4.5',
      'host 192.168.10.20 answered',
      'ISBN 978-3-16-148410-0',
      'order 4471932 shipped',
      'batch 123-4567',
      'total 1234567.89 EUR',
    ])
      assert.deepEqual(shown(text, findPhones(text)), [], text);
  });

  it("counts Ofcom's drama ranges as UK numbers, and nothing next to them", () => {
    const rand = seeded(23);
    // Ofcom's published ranges for drama: 0113 496 0xxx (Leeds), 020 7946 0xxx (London),
    // 0161 496 0xxx (Manchester), 07700 900xxx (mobile), 0808 157 0xxx (freephone).
    for (const range of ['1134960', '2079460', '1614960', '7700900', '8081570']) {
      const drama = parsePhoneNumberFromString(`+44${range}${rand.digits(3)}`)!;
      assert.equal(isFictionalUkNumber(drama), true, drama.number);
    }
    for (const near of ['+447700901234', '+442079461234', `+1${'7700900'}123`, '+4477009001234'])
      assert.equal(isFictionalUkNumber(parsePhoneNumberFromString(near)!), false, near);
  });
});

describe('IBANs', () => {
  const rand = seeded(31);
  const bbans: [string, () => string][] = [
    ['DE', () => rand.digits(18)],
    ['GB', () => `${rand.from('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 4)}${rand.digits(14)}`],
    ['NL', () => `${rand.from('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 4)}${rand.digits(10)}`],
    ['AT', () => rand.digits(16)],
    ['CH', () => `${rand.digits(5)}${rand.from('0123456789ABCDEFGHIJ', 12)}`],
    ['IE', () => `${rand.from('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 4)}${rand.digits(14)}`],
  ];

  it('finds IBANs of six countries, compact and in printed blocks of four', () => {
    for (const [country, bban] of bbans)
      for (let i = 0; i < 5; i++) {
        const compact = iban(country, bban());
        for (const written of [compact, grouped(compact, ' ')]) {
          const text = `Pay to ${written}, reference 7.`;
          assert.deepEqual(shown(text, findIbans(text)), [[written, 'FINANCIAL']], text);
        }
      }
  });

  it('leaves wrong check digits, a wrong length and letters or digits running on', () => {
    for (const [country, bban] of bbans) {
      const good = iban(country, bban());
      const wrongCheck = `${good.slice(0, 2)}${String((Number(good.slice(2, 4)) + 1) % 100).padStart(2, '0')}${good.slice(4)}`;
      for (const text of [wrongCheck, good.slice(0, -1), `${good}7`, `${good}X`, `X${good}`])
        assert.deepEqual(shown(text, findIbans(text)), [], text);
    }
  });

  it('ends a printed IBAN where its country says, before the next number', () => {
    const good = iban('DE', rand.digits(18));
    const text = `IBAN ${grouped(good, ' ')} 2024`;
    assert.deepEqual(shown(text, findIbans(text)), [[grouped(good, ' '), 'FINANCIAL']]);
  });
});

describe('payment cards', () => {
  const rand = seeded(41);
  const networks: [string, string, number][] = [
    ['Visa', '4', 16],
    ['Visa 13', '4', 13],
    ['Mastercard', '5', 16],
    ['Mastercard 2-series', '2720', 16],
    ['Amex', '37', 15],
    ['Discover', '6011', 16],
    ['JCB', '3530', 16],
    ['Diners', '36', 14],
    ['UnionPay 19', '62', 19],
  ];

  it('finds numbers of each network that pass Luhn, together, spaced or hyphenated', () => {
    for (const [name, prefix, length] of networks)
      for (let i = 0; i < 5; i++) {
        const digits = card(rand, prefix === '5' ? `5${1 + rand.int(5)}` : prefix, length);
        assert.equal(luhnValid(digits), true, `${name} ${digits}`);
        for (const written of [digits, grouped(digits, ' '), grouped(digits, '-')]) {
          const text = `Card: ${written} exp 04/29`;
          assert.deepEqual(shown(text, findPaymentCards(text)), [[written, 'FINANCIAL']], `${name}: ${text}`);
        }
      }
  });

  it('leaves a Luhn-failing number, a wrong prefix or length and mixed separators', () => {
    for (const [name, prefix, length] of networks) {
      const good = card(rand, prefix === '5' ? '53' : prefix, length);
      const bad = `${good.slice(0, -1)}${(Number(good.at(-1)) + 1) % 10}`;
      assert.equal(luhnValid(bad), false, bad);
      assert.deepEqual(findPaymentCards(`Card ${bad}`), [], `${name} ${bad}`);
    }
    const noNetwork = card(rand, '1', 16);
    const visaOfFifteen = card(rand, '4', 15);
    const mixed = grouped(card(rand, '4', 16), ' ').replace(' ', '-');
    for (const text of [noNetwork, visaOfFifteen, mixed])
      assert.deepEqual(findPaymentCards(`ref ${text}`), [], text);
  });

  it('leaves numbers that are something else: a decimal, a version, a path, an ISBN', () => {
    const visa = card(rand, '4', 16);
    for (const text of [
      `${visa}.50`,
      `0.${visa}`,
      `v1.${visa}`,
      `/files/${visa}/x`,
      '978-0-306-40615-7',
      `${visa}-1`,
    ])
      assert.deepEqual(findPaymentCards(text), [], text);
  });
});

describe('US SSNs and ITINs', () => {
  const rand = seeded(51);
  const pad = (n: number, width: number) => String(n).padStart(width, '0');

  it('finds numbers the SSA and the IRS issue, written AAA-GG-SSSS', () => {
    for (let i = 0; i < 30; i++) {
      let area = 1 + rand.int(899);
      if (area === 666) area = 667;
      const ssn = `${pad(area, 3)}-${pad(1 + rand.int(99), 2)}-${pad(1 + rand.int(9999), 4)}`;
      const itin = `9${rand.digits(2)}-${rand.pick(['50', '65', '70', '88', '90', '92', '94', '99'])}-${pad(1 + rand.int(9999), 4)}`;
      for (const number of [ssn, itin]) {
        const text = `SSN ${number} on file`;
        assert.deepEqual(shown(text, findUsSsns(text)), [[number, 'FINANCIAL']], text);
      }
    }
  });

  it('leaves areas 000 and 666, group 00, serial 0000, ITIN groups outside the rules, voided numbers', () => {
    for (const number of [
      '000-12-3456',
      '666-12-3456',
      '123-00-4567',
      '123-45-0000',
      '912-49-1234',
      '912-66-1234',
      '912-89-1234',
      '912-93-1234',
      '078-05-1120',
      '219-09-9999',
      '123-45-6789',
    ])
      assert.deepEqual(findUsSsns(`SSN ${number}`), [], number);
  });

  it('leaves nine digits without hyphens, or inside a longer code', () => {
    for (const text of [
      'SSN 123456780',
      'SSN 123 45 6780',
      'ref A123-45-6780',
      '123-45-6780-1',
      '1123-45-6780',
    ])
      assert.deepEqual(findUsSsns(text), [], text);
  });
});

describe('bank account numbers', () => {
  const rand = seeded(61);

  it('finds the number a label names, in English, German and French', () => {
    for (let i = 0; i < 5; i++) {
      const plain = rand.digits(6 + rand.int(12));
      const spaced = `${rand.digits(4)} ${rand.digits(4)}`;
      for (const [label, number] of [
        ['Account number:', plain],
        ['Savings account no.', plain],
        ['acct #', spaced],
        ['A/C', plain],
        ['Kontonummer', plain],
        ['Konto Nr.', spaced],
        ['Numéro de compte :', plain],
      ] as const) {
        const text = `${label} ${number}\n`;
        assert.deepEqual(shown(text, findBankAccounts(text)), [[number, 'FINANCIAL']], text);
      }
    }
  });

  it('leaves unlabelled numbers, too few or too many digits, and amounts', () => {
    for (const text of [
      `Order ${rand.digits(10)}`,
      'Account number: 12345',
      `Account number: ${rand.digits(18)}`,
      'Account balance: 1234567',
      'account 1234567.89',
      'account 123456-x',
      'Accountant 1234567',
    ])
      assert.deepEqual(findBankAccounts(text), [], text);
  });
});
