import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { meteredModel, OpenAICompatibleModel } from '../../src/enrich/llm/provider.ts';
import { type FakeLlm, startFakeLlm } from '../helpers/fake-llm.ts';

/**
 * What a model call spent, for the team's token usage: the server's own `usage.total_tokens`,
 * else (servers that send none) an estimate of 4 characters a token over what was sent and
 * answered, as the README says.
 */
describe("a model call's tokens", () => {
  let counting: FakeLlm;
  let silent: FakeLlm;
  before(async () => {
    counting = await startFakeLlm();
    silent = await startFakeLlm({ withoutUsage: true });
  });
  after(async () => {
    await counting.close();
    await silent.close();
  });
  const model = (url: string) =>
    new OpenAICompatibleModel({
      baseUrl: url,
      apiKey: '',
      model: 'fake-model',
      concurrency: 1,
      zeroRetention: false,
      maxInputTokens: 1000,
    });
  const messages = [
    { role: 'system' as const, content: 'Summarise the document.' },
    {
      role: 'user' as const,
      content: '<<<DOCUMENT 00>>>\nSeals sleep at sea. They float.\n<<<END DOCUMENT 00>>>',
    },
  ];

  it("takes the server's count when it reports one", async () => {
    const counts: number[] = [];
    const text = await model(counting.url).complete({
      messages,
      maxTokens: 50,
      signal: AbortSignal.timeout(30_000),
      onTokens: (n) => counts.push(n),
    });
    assert.equal(text, 'Summary: Seals sleep at sea.');
    assert.deepEqual(counts, [counting.tokens]);
    // Words, as the fake counts them: 3 + 11 sent (the delimiters are 5), 5 answered.
    assert.deepEqual(counts, [19]);
  });

  it('estimates 4 characters a token when the server reports none', async () => {
    const counts: number[] = [];
    const text = await model(silent.url).complete({
      messages,
      maxTokens: 50,
      signal: AbortSignal.timeout(30_000),
      onTokens: (n) => counts.push(n),
    });
    const chars = messages[0]!.content.length + messages[1]!.content.length + text.length;
    assert.deepEqual(counts, [Math.ceil(chars / 4)]);
  });

  it('records what a metered call spent before handing its answer on', async () => {
    const recorded: number[] = [];
    let answered = false;
    const metered = meteredModel(model(counting.url), async (tokens) => {
      assert.equal(answered, false);
      recorded.push(tokens);
    });
    await metered.complete({ messages, maxTokens: 50, signal: AbortSignal.timeout(30_000) });
    answered = true;
    assert.deepEqual(recorded, [19]);
  });
});
