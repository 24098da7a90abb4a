import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { type FakeLlm, startFakeLlm } from '../helpers/fake-llm.ts';
import { useServer } from '../helpers/server.ts';

/**
 * The official JS SDK's parse() with the options that involve a language model or redaction, over
 * a real socket (the SDK takes a URL). What each option does is tested in-process
 * (test/http/enrich.test.ts, test/http/redact-pii-model.test.ts, test/unit/redact-pii.test.ts);
 * here, that the SDK sends them and reads the answers.
 */
describe('the JS SDK: parse() with summary, json and redactPII', () => {
  let fake: FakeLlm;
  const env: Record<string, string> = {};
  before(async () => {
    // What the fake model "knows" to be personal, for redactPII's accurate mode.
    fake = await startFakeLlm({ pii: [{ text: 'Quillon Verhoeven-Maas', type: 'PERSON' }] });
    Object.assign(env, { QUIRE_LLM_BASE_URL: fake.url, QUIRE_LLM_MODEL: 'fake-model' });
  });
  after(() => fake.close());
  const server = useServer(env);
  const client = () => new Firecrawl({ apiKey: server().key, apiUrl: server().url });
  const sentFor = (marker: string) => fake.requests.filter((r) => JSON.stringify(r.body).includes(marker));

  it('summary and json from the model', async () => {
    const doc = await client().parse(
      {
        data: Buffer.from('Order number: 5521 id-sdk\n\nCustomer: Ada Park\n\nThe order shipped today.'),
        filename: 'order.md',
      },
      {
        formats: [
          'summary',
          {
            type: 'json',
            schema: {
              type: 'object',
              properties: { orderNumber: { type: 'integer' }, customer: { type: 'string' } },
            },
          },
        ],
      },
    );
    assert.equal(
      doc.summary,
      'Summary: Order number: 5521 id-sdk Customer: Ada Park The order shipped today.',
    );
    assert.deepEqual(doc.json, { orderNumber: 5521, customer: 'Ada Park' });
  });

  it('redactPII fast, by validated patterns', async () => {
    const doc = await client().parse(
      {
        data: Buffer.from(
          '<p>Amara wrote from amara.okafor@example.com and asked to be called back on +44 7700 900233.</p>',
        ),
        filename: 'ticket.html',
        contentType: 'text/html',
      },
      { formats: ['markdown'], redactPII: { mode: 'fast' } },
    );
    assert.equal(doc.markdown, 'Amara wrote from <EMAIL> and asked to be called back on <PHONE>.');
  });

  it('redactPII accurate through the model, masked', async () => {
    const doc = await client().parse(
      { data: Buffer.from('Quillon Verhoeven-Maas signed the log id-mask.'), filename: 'report.md' },
      { redactPII: { mode: 'accurate', replaceStyle: 'mask' } },
    );
    // One asterisk per character, each escaped so that Markdown shows it.
    assert.equal(doc.markdown, `${'\\*'.repeat(22)} signed the log id-mask.`);
    assert.equal(sentFor('id-mask').length, 1);
  });
});
