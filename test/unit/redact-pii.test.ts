import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findPii } from '../../src/transform/pii/find-pii.ts';
import { loadNameFinder } from '../../src/transform/pii/names.ts';
import { allBuckets } from '../../src/transform/pii/settings.ts';
import { type ConvertFile, convert } from '../helpers/convert.ts';
import { para, R, run, wordPackage } from '../helpers/docx.ts';
import { corpusFile } from '../helpers/server.ts';

/** The answer's data for `file` converted with `options`, as a conversion worker gives it. */
const dataOf = async (file: ConvertFile, options: object) =>
  (await convert(file, options)) as Record<string, any>;

/** All data below is invented: reserved phone ranges, documented test cards and IBANs, example.com. */
const ticket = `<!doctype html><html><head><title>Ticket 4471</title></head><body><main>
<h1>Ticket 4471: refund request</h1>
<p>Customer: Amara Okafor wrote from amara.okafor@example.com and asked to be called back on +44 7700 900233.</p>
<p>Her card 4111 1111 1111 1111 was charged twice; refund to IBAN GB82 WEST 1234 5698 7654 32.</p>
<p>She lives at 17 Carver Street, Sheffield S1 4FS.</p>
<pre><code>STRIPE_SECRET_KEY=sk_live_7Ao1zBtqijbPnle1wnCiSauw
DATABASE_URL=postgres://app:Vq7pL2xrT9wZ@db.example.com:5432/shop</code></pre>
<p>The order shipped on 2024-03-14 with 3 items at 19.99 EUR each.</p>
</main></body></html>`;

const html = (body: string): ConvertFile => ({
  bytes: body,
  filename: 'page.html',
  contentType: 'text/html',
});

/**
 * redactPII as the conversion applies it (README, PII redaction), in the test's process. The
 * request's refusals are test/http/parse-validation.test.ts's, the model's part
 * test/http/redact-pii-model.test.ts's, the SDK's test/e2e/sdk-parse-options.test.ts's.
 */
describe('redactPII', () => {
  it('fast mode redacts e-mail, phone, financial and secret values by their validated patterns', async () => {
    const data = await dataOf(html(ticket), {
      formats: ['markdown', 'html'],
      redactPII: { mode: 'fast' },
    });
    const md = data.markdown;
    assert.match(md, /from <EMAIL> and asked to be called back on <PHONE>\./);
    assert.match(md, /Her card <FINANCIAL> was charged twice; refund to IBAN <FINANCIAL>\./);
    assert.match(
      md,
      /STRIPE_SECRET_KEY=<SECRET>\nDATABASE_URL=postgres:\/\/app:<SECRET>@db\.example\.com:5432\/shop/,
    );
    // Fast mode leaves people and places to the modes that look for them.
    assert.match(md, /Customer: Amara Okafor wrote/);
    assert.match(md, /17 Carver Street, Sheffield S1 4FS/);
    // Numbers that do not validate as anything stay: a date, a count, a price.
    assert.match(md, /shipped on 2024-03-14 with 3 items at 19\.99 EUR each/);
    for (const value of ['amara.okafor@', '900233', '4111', 'GB82', 'sk_live', 'Vq7pL2x'])
      assert.ok(!data.markdown.includes(value) && !data.html.includes(value), value);
    assert.match(data.html, /&#x3C;EMAIL>|&lt;EMAIL&gt;/);
    assert.equal(data.warning, undefined);
  });

  it('aggressive mode also redacts people and places', async () => {
    const data = await dataOf(html(ticket), { redactPII: { mode: 'aggressive' } });
    const md = data.markdown;
    assert.match(md, /Customer: <PERSON> wrote from <EMAIL>/);
    assert.match(md, /She lives at <LOCATION>\./);
    assert.match(md, /# Ticket 4471: refund request/);
  });

  it('accurate mode (the default) runs aggressive and says that no model is configured', async () => {
    const data = await dataOf(html(ticket), { redactPII: true });
    assert.match(data.markdown, /Customer: <PERSON> wrote from <EMAIL>/);
    assert.equal(
      data.warning,
      'redactPII mode accurate needs a language model; none is configured, so the aggressive mode ran.',
    );
  });

  it('mask writes one * per character and remove deletes the span', async () => {
    const page = html('<p>Write to ann.lee@example.com or call (202) 555-0143 today.</p>');
    const masked = await dataOf(page, { redactPII: { mode: 'fast', replaceStyle: 'mask' } });
    assert.equal(masked.markdown, `Write to ${'\\*'.repeat(19)} or call ${'\\*'.repeat(14)} today.`);
    const removed = await dataOf(page, { redactPII: { mode: 'fast', replaceStyle: 'remove' } });
    // The span goes; the Markdown writer then folds the two spaces left around it, as it does any.
    assert.equal(removed.markdown, 'Write to or call today.');
  });

  it('says so when remove leaves no text at all', async () => {
    const data = await dataOf(html('<p>ann.lee@example.com</p>'), {
      redactPII: { mode: 'fast', replaceStyle: 'remove' },
    });
    assert.equal(data.markdown, '');
    assert.match(data.warning, /redactPII removed all of the text/);
  });

  it('entities restricts the buckets', async () => {
    const data = await dataOf(html(ticket), {
      redactPII: { mode: 'aggressive', entities: ['EMAIL', 'LOCATION'] },
    });
    const md = data.markdown;
    assert.match(
      md,
      /Customer: Amara Okafor wrote from <EMAIL> and asked to be called back on \+44 7700 900233\./,
    );
    assert.match(md, /She lives at <LOCATION>\./);
    assert.match(md, /4111 1111 1111 1111/);
    // A bucket left out still blocks its wrong readings: the URL's password is no e-mail address.
    assert.match(md, /postgres:\/\/app:Vq7pL2xrT9wZ@db\.example\.com/);
  });

  it('redacts mailto: and tel: links, keeping them links, and images alt text', async () => {
    const page = html(
      '<p>Mail <a href="mailto:ann.lee@example.com?subject=Refund">ann.lee@example.com</a>, ' +
        '<a href="tel:+442079460958">call us</a> or see <a href="https://example.com/help">help</a>.</p>' +
        '<p><img src="https://example.com/a.png" alt="Badge of ann.lee@example.com"></p>',
    );
    const data = await dataOf(page, {
      formats: ['markdown', 'links', 'images', 'html'],
      onlyMainContent: false,
      redactPII: { mode: 'fast' },
    });
    // `links` lists web and mailto: targets (tel: ones are not links to follow).
    assert.deepEqual(data.links, ['mailto:<EMAIL>?subject=Refund', 'https://example.com/help']);
    assert.equal(
      data.markdown,
      'Mail [<EMAIL>](mailto:<EMAIL>?subject=Refund), [call us](tel:<PHONE>) or see [help](https://example.com/help).\n\n' +
        '![Badge of <EMAIL>](https://example.com/a.png)',
    );
    assert.match(
      data.html,
      /<a href="mailto:<EMAIL>\?subject=Refund">&#x3C;EMAIL><\/a>, <a href="tel:<PHONE>">call us<\/a>/,
    );
    assert.match(data.html, /<img src="https:\/\/example\.com\/a\.png" alt="Badge of <EMAIL>">/);
    assert.deepEqual(data.images, ['https://example.com/a.png']);
  });

  it('keeps a DOCX table and link intact around redacted text, and redacts the metadata', async () => {
    const data = await dataOf(
      { bytes: piiDocx(), filename: 'contacts.docx' },
      {
        formats: ['markdown', 'links'],
        redactPII: { mode: 'aggressive' },
      },
    );
    const md = data.markdown;
    assert.match(
      md,
      /^\| Name \| E-mail \| Phone \|\n\| - \| - \| - \|\n\| <PERSON> \| <EMAIL> \| <PHONE> \|$/m,
    );
    assert.match(md, /Write to \[<EMAIL>\]\(/);
    assert.deepEqual(data.links, ['mailto:<EMAIL>']);
    assert.equal(data.metadata.author, '<PERSON>');
    assert.equal(data.metadata.title, 'Contacts');
    assert.doesNotMatch(JSON.stringify(data), /Okonkwo|samuel|7946/);
  });

  it('redacts the cells of a CSV as they stream out', async () => {
    const csv = 'name,email,phone,city\nKenji Watanabe,k.watanabe@example.jp,+81 3-1234-5678,Tokyo\n';
    const data = await dataOf({ bytes: csv, filename: 'people.csv' }, { redactPII: { mode: 'fast' } });
    assert.match(data.markdown, /\| Kenji Watanabe \| <EMAIL> \| <PHONE> \| Tokyo \|/);
  });

  it('redacts secrets inside a code block without breaking its fence', async () => {
    const json = JSON.stringify(
      { github: { token: 'ghp_dIQKUwvzhYtM8thr3BWkfDVdWFugJkg7nr6u' }, retries: 5 },
      null,
      2,
    );
    const data = await dataOf({ bytes: json, filename: 'config.json' }, { redactPII: { mode: 'fast' } });
    assert.match(
      data.markdown,
      /^```json\n\{\n {2}"github": \{\n {4}"token": "<SECRET>"\n {2}\},\n {2}"retries": 5\n\}\n```$/,
    );
  });

  it('leaves a document with no personal information byte for byte as it was', async () => {
    for (const name of ['docx/docling-unit_test_headers.docx', 'html/docling-example_01.html']) {
      const file = corpusFile(name);
      const plain = await dataOf(file, { formats: ['markdown', 'html'] });
      const redactedDoc = await dataOf(file, {
        formats: ['markdown', 'html'],
        redactPII: { mode: 'aggressive' },
      });
      assert.equal(redactedDoc.markdown, plain.markdown, name);
      assert.equal(redactedDoc.html, plain.html, name);
    }
  });
});

/** The values `fast` mode redacts in `text`, as strings. */
function fastValues(text: string): string[] {
  return findPii(text, 'fast', new Set(allBuckets)).map((s) => text.slice(s.start, s.end));
}

describe('redactPII secrets', () => {
  it('takes a value for a secret only when it is one, not code, prose or a stand-in', () => {
    const notSecrets = [
      'password: process.env.DB_PASSWORD,',
      '  password: string;',
      '  password: Optional[str] = None',
      'db_password = os.environ["DB_PASSWORD"]',
      'password = user.password',
      'password: hashedPassword,',
      'password: !vault |',
      // A shell expansion's error message.
      `MYSQL_ROOT_PASSWORD: \${MYSQL_ROOT_PASSWORD:?required}`,
      'Password: sent separately via Signal.',
      'hashed_password: "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$9f86d081884c7d659a2feaa0c55ad015"',
      'STRIPE_KEY=sk_test_xxxxxxxxxxxxxxxxxxxxxxxx',
      'AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE',
      'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      'api_key: YOUR_API_KEY_HERE',
      'idempotency_key: 7f3e9a2c-4b1d-4e8f-9a6b-2c5d8e1f0a3b',
      'cache_key: user:1234:profile',
      'kms_key_id: arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
      'STRIPE_PUBLISHABLE_KEY=pk_live_51H8xYzAbCdEfGhIjKlMnOpQrStUvWxYz',
      'key: "user-avatars/2024/11/3f2a9c1d.png"',
      'signing_key_fingerprint: 3f2a9c1d7e8b4a6f0c2d5e9b1a7f3c8d6e4b2a90',
      // base64 of {"not":"a header"}, {} and "signature": text dressed as a token.
      'TEST_TOKEN=eyJub3QiOiJhIGhlYWRlciJ9.e30.c2lnbmF0dXJl',
    ];
    for (const line of notSecrets) assert.deepEqual(fastValues(line), [], line);
    const secrets: [string, string][] = [
      ['DB_PASSWORD=pr0d_Db_2024!x', 'pr0d_Db_2024!x'],
      ['password: Tr0ub4dor&3', 'Tr0ub4dor&3'],
      ['  password: "hashedPassword",', 'hashedPassword'],
      ['client_secret: 8Qw3eRt7yUi0oPa5sDf1gHj4kLz6xCv8b', '8Qw3eRt7yUi0oPa5sDf1gHj4kLz6xCv8b'],
      ['JWT_SIGNING_KEY=yJ9/DF6tv+74yHXsq0ukQcacXBLEgAqq', 'yJ9/DF6tv+74yHXsq0ukQcacXBLEgAqq'],
      [
        'access_token=ya29.a0AfH6SMBx7vQ2kLm8Qw3eRt7yUi0oPa5sDf1gHj4k',
        'ya29.a0AfH6SMBx7vQ2kLm8Qw3eRt7yUi0oPa5sDf1gHj4k',
      ],
    ];
    for (const [line, value] of secrets) assert.deepEqual(fastValues(line), [value], line);
  });
});

describe('redactPII addresses', () => {
  it('takes the address lines of many countries as one place each', async () => {
    const names = await loadNameFinder();
    const places = (text: string) =>
      findPii(text, 'aggressive', new Set(allBuckets), names)
        .filter((s) => s.bucket === 'LOCATION')
        .map((s) => text.slice(s.start, s.end));
    const lines: [string, string[]][] = [
      ['Office: 350 5th Ave, New York, NY 10118', ['350 5th Ave, New York, NY 10118']],
      ['Ship to: 1600 Pennsylvania Avenue NW, Washington', ['1600 Pennsylvania Avenue NW, Washington']],
      ['Mail to PO Box 4471, Boise, ID 83702', ['PO Box 4471, Boise, ID 83702']],
      ['Dirección: Calle de Alcalá 45, 28014 Madrid', ['Calle de Alcalá 45, 28014 Madrid']],
      ['Morada: Avenida da Liberdade 110, 1250-146 Lisboa', ['Avenida da Liberdade 110, 1250-146 Lisboa']],
      ['Adresse: Karl Johans gate 22, 0159 Oslo', ['Karl Johans gate 22, 0159 Oslo']],
      ['Location: the pavilion, Mill Lane, Hebden Bridge', ['Mill Lane, Hebden Bridge']],
      ['Meet at the corner of Market Street and High Street, Bristol.', ['High Street, Bristol']],
      ['Anschrift: Praterstraße 12, 1020 Wien, Österreich', ['Praterstraße 12, 1020 Wien, Österreich']],
      ['She was born in County Cork and lives in Northern Ireland.', ['County Cork', 'Northern Ireland']],
      ['I live in Leeds, West Yorkshire.', ['Leeds, West Yorkshire']],
      ['We moved from Catalonia to the Algarve.', ['Catalonia', 'Algarve']],
    ];
    for (const [line, expected] of lines) assert.deepEqual(places(line), expected, line);
  });
});

/** A DOCX with a contact table, a mailto: hyperlink and an author, built in memory. */
function piiDocx(): Buffer {
  const cell = (text: string) => `<w:tc>${para(run(text))}</w:tc>`;
  const row = (...cells: string[]) => `<w:tr>${cells.map(cell).join('')}</w:tr>`;
  const body =
    para(run('Contacts')) +
    `<w:tbl>${row('Name', 'E-mail', 'Phone')}${row('Samuel Okonkwo', 'samuel.okonkwo@example.co.uk', '+44 20 7946 0958')}</w:tbl>` +
    para(
      run('Write to '),
      `<w:hyperlink r:id="rId9">${run('samuel.okonkwo@example.co.uk')}</w:hyperlink>`,
      run(' for details.'),
    );
  return wordPackage({
    body,
    rels: [
      `<Relationship Id="rId9" Type="${R}/hyperlink" Target="mailto:samuel.okonkwo@example.co.uk" TargetMode="External"/>`,
    ],
    core: '<dc:title>Contacts</dc:title><dc:creator>Samuel Okonkwo</dc:creator>',
  });
}
