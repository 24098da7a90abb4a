import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { useApp } from '../helpers/app.ts';
import { type FakeLlm, startFakeLlm } from '../helpers/fake-llm.ts';
import { parse } from '../helpers/server.ts';

// What the fake model "knows" to be personal: two strings of the report below, one it invents
// (in no document) and one too short to redact safely.
const known = [
  { text: 'Quillon Verhoeven-Maas', type: 'PERSON' },
  { text: 'Glimmerwick', type: 'LOCATION' },
  { text: 'Orsolya Invented', type: 'PERSON' },
  { text: 'Q', type: 'PERSON' },
];

const report = (marker: string) =>
  `# Visit report ${marker}\n\n` +
  'Quillon Verhoeven-Maas visited the plant in Glimmerwick on Tuesday. ' +
  'Contact: quillon@example.org, card 4111 1111 1111 1111.\n\n' +
  'Later Quillon Verhoeven-Maas signed the log. The Glimmerwickshire office and Orsolya were away. Q1 ended.\n';

const upload = (marker: string) => ({ bytes: report(marker), filename: 'report.md', type: 'text/markdown' });

describe('redactPII accurate with a language model', () => {
  let fake: FakeLlm;
  const env: Record<string, string> = {};
  before(async () => {
    fake = await startFakeLlm({ pii: known });
    Object.assign(env, { QUIRE_LLM_BASE_URL: fake.url, QUIRE_LLM_MODEL: 'fake-model' });
  });
  after(() => fake.close());
  const server = useApp(env);
  const sentFor = (marker: string) => fake.requests.filter((r) => JSON.stringify(r.body).includes(marker));

  it('redacts what the model found, everywhere and only as whole words, beside the validated patterns', async () => {
    const res = await parse(server(), { file: upload('id-accurate'), options: { redactPII: true } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const markdown: string = res.body.data.markdown;
    assert.match(markdown, /<PERSON> visited the plant in <LOCATION> on Tuesday\./);
    assert.match(markdown, /Contact: \[<EMAIL>\]\(mailto:<EMAIL>\), card <FINANCIAL>\./);
    assert.match(markdown, /Later <PERSON> signed the log\./);
    assert.doesNotMatch(markdown, /Quillon|Verhoeven/);
    // Inside a longer word, an invented name, a lone letter: untouched.
    assert.match(markdown, /The Glimmerwickshire office and Orsolya were away\. Q1 ended\./);
    assert.equal(res.body.data.warning, undefined);
    const [request] = sentFor('id-accurate');
    assert.ok(request, 'the model was asked');
    assert.match(request.body.messages[0]!.content, /personal information/);
    assert.match(request.body.messages[1]!.content, /Quillon Verhoeven-Maas visited the plant/);
  });

  it('masks what the model found, one * per character, asking the model once', async () => {
    const res = await parse(server(), {
      file: upload('id-mask'),
      options: { redactPII: { mode: 'accurate', replaceStyle: 'mask' } },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    // Each asterisk escaped so that Markdown shows it.
    assert.match(res.body.data.markdown, /^(?:\\\*){22} visited the plant in (?:\\\*){11} on Tuesday\./m);
    assert.equal(sentFor('id-mask').length, 1);
  });

  it('the aggressive mode, without the model, does not know the name', async () => {
    const res = await parse(server(), {
      file: upload('id-aggressive'),
      options: { redactPII: { mode: 'aggressive' } },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match(res.body.data.markdown, /Quillon Verhoeven-Maas visited/);
    assert.equal(sentFor('id-aggressive').length, 0);
  });

  it('asks only for the buckets in entities and redacts only those', async () => {
    const res = await parse(server(), {
      file: upload('id-entities'),
      options: { redactPII: { mode: 'accurate', entities: ['EMAIL', 'LOCATION'] } },
    });
    assert.equal(res.status, 200);
    assert.match(res.body.data.markdown, /Quillon Verhoeven-Maas visited the plant in <LOCATION>/);
    assert.match(
      res.body.data.markdown,
      /Contact: \[<EMAIL>\]\(mailto:<EMAIL>\), card 4111 1111 1111 1111\./,
    );
    const format = sentFor('id-entities')[0]!.body.response_format;
    const schema = JSON.stringify(format?.json_schema?.schema);
    assert.match(schema, /"enum":\["EMAIL","LOCATION"\]/);
  });

  it('falls back to the aggressive mode, and says so, when the model fails', async () => {
    const res = await parse(server(), { file: upload('id-broken fake-fail'), options: { redactPII: true } });
    assert.equal(res.status, 200);
    assert.match(res.body.data.markdown, /Contact: \[<EMAIL>\]\(mailto:<EMAIL>\), card <FINANCIAL>\./);
    assert.match(
      res.body.data.warning,
      /redactPII mode accurate could not use the language model \(.*fake model failed.*\), so the aggressive mode ran\./,
    );
  });

  it('sends nothing to a model not marked as keeping nothing under zero data retention', async () => {
    const res = await parse(server(), {
      file: upload('id-zdr'),
      options: { redactPII: true, zeroDataRetention: true },
    });
    assert.equal(res.status, 200);
    assert.equal(sentFor('id-zdr').length, 0);
    assert.match(res.body.data.warning, /zero data retention is on.*so the aggressive mode ran/);
    assert.match(res.body.data.markdown, /Contact: \[<EMAIL>\]/);
  });
});
