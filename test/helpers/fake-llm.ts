import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-compatible chat server on loopback that stands in for the remote model, and only
 * for it: it answers `/chat/completions` deterministically from what it is sent, so tests can
 * check what Quire sends a model and what it makes of the answers.
 *
 * - A summary request (no response_format) gets "Summary: " and the document's first sentence;
 *   a request to combine summaries gets "Combined: " and the parts joined.
 * - A JSON request gets an object built from the schema (in response_format, or in the prompt
 *   when the format is json_object) filled from `Label: value` lines of the document whose label
 *   is the property's name; a prompt without a schema gets {answer, request}.
 * - Markers in the document steer it: `fake-fail` answers 500, `fake-hang` never answers,
 *   `fake-invalid-once` answers JSON that breaks the schema on the first try only,
 *   `fake-garbage` always answers text that is not JSON.
 * - `refuseJsonSchema` makes it refuse response_format json_schema with a 400, as older servers do.
 * - Answers report `usage`, counting words as tokens (`withoutUsage`: none, as some servers).
 * - A question gets "Answer: " and the first sentence it was sent; a request to pick passages
 *   picks those holding `fake-pick` (else the first).
 * - A request to find personal information gets `pii` (what the fake model "knows" to be
 *   personal), whatever the document says, so tests can check what Quire does with an answer.
 */
export interface RecordedRequest {
  authorization: string | undefined;
  body: {
    model?: string;
    messages: { role: string; content: string }[];
    response_format?: {
      type: string;
      json_schema?: { name: string; schema: Record<string, unknown>; strict: boolean };
    };
    max_tokens?: number;
  };
}

export interface FakeLlm {
  /** The base URL to configure (`…/v1`). */
  url: string;
  requests: RecordedRequest[];
  /** The most requests it has been answering at once. */
  maxInFlight: number;
  /** The `usage.total_tokens` of every answer it gave, summed. */
  tokens: number;
  close(): Promise<void>;
}

const DOCUMENT = /<<<DOCUMENT ([0-9a-f]+)>>>\n([\s\S]*?)\n<<<END DOCUMENT \1>>>/;

function documentOf(request: RecordedRequest): string {
  const user = request.body.messages.find((m) => m.role === 'user')?.content ?? '';
  return DOCUMENT.exec(user)?.[2] ?? '';
}

function firstSentence(text: string): string {
  const plain = text
    .replace(/[#*_>|`]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return /^.*?[.!?](?=\s|$)/.exec(plain)?.[0] ?? plain.slice(0, 200);
}

const wordsOf = (name: string) =>
  name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '');

/** A value for each property whose name labels a line of the document. */
function fill(schema: Record<string, unknown>, document: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const properties = (schema.properties ?? {}) as Record<string, { type?: string }>;
  const lines = document.split('\n').map((l) => l.replace(/\*\*/g, '').trim());
  for (const [name, property] of Object.entries(properties)) {
    const line = lines.find((l) => wordsOf(l.split(':')[0] ?? '') === wordsOf(name) && l.includes(':'));
    if (!line) continue;
    const value = line.slice(line.indexOf(':') + 1).trim();
    if (property.type === 'number' || property.type === 'integer')
      out[name] = Number(value.replace(/[^\d.]/g, ''));
    else if (property.type === 'boolean') out[name] = /^yes|true/i.test(value);
    else if (property.type === 'string') out[name] = value;
  }
  return out;
}

function schemaOf(request: RecordedRequest): Record<string, unknown> | undefined {
  const format = request.body.response_format;
  if (format?.type === 'json_schema') return format.json_schema?.schema;
  const user = request.body.messages.find((m) => m.role === 'user')?.content ?? '';
  const inPrompt = /matches this JSON Schema:\n(.*)\n/.exec(user);
  return inPrompt ? JSON.parse(inPrompt[1]!) : undefined;
}

export interface FakeLlmOptions {
  refuseJsonSchema?: boolean;
  /** Answer without `usage`, as some servers do. */
  withoutUsage?: boolean;
  pii?: { text: string; type: string }[];
}

function answer(
  request: RecordedRequest,
  options: FakeLlmOptions,
): { status: number; body: unknown } | 'hang' {
  const document = documentOf(request);
  if (document.includes('fake-hang')) return 'hang';
  if (document.includes('fake-fail'))
    return { status: 500, body: { error: { message: 'the fake model failed' } } };
  if (options.refuseJsonSchema && request.body.response_format?.type === 'json_schema')
    return {
      status: 400,
      body: { error: { message: "response_format type 'json_schema' is not supported" } },
    };
  const system = request.body.messages.find((m) => m.role === 'system')?.content ?? '';
  let content: string;
  if (system.includes('personal information')) {
    content = JSON.stringify({ entities: options.pii ?? [] });
  } else if (system.includes('You answer questions')) {
    content = `Answer: ${firstSentence(document)}`;
  } else if (system.includes('You pick the passages')) {
    // The passages that hold `fake-pick`, most relevant (last) first; else the first one.
    const numbered = document.split(/\n\n(?=\[\d+\]\n)/).map((p) => /^\[(\d+)\]\n([\s\S]*)$/.exec(p));
    const picked = numbered.filter((m) => m?.[2]?.includes('fake-pick')).map((m) => Number(m?.[1]));
    content = JSON.stringify({ passages: picked.length > 0 ? picked.reverse() : [1] });
  } else if (!system.includes('JSON')) {
    content = system.includes('combine summaries')
      ? `Combined: ${document.replace(/\n+/g, ' ')}`
      : `Summary: ${firstSentence(document)}`;
  } else if (document.includes('fake-garbage')) {
    content = 'I cannot answer in JSON, sorry.';
  } else {
    const schema = schemaOf(request);
    const retried = request.body.messages.some((m) => m.role === 'assistant');
    if (schema && document.includes('fake-invalid-once') && !retried) {
      const first = Object.keys((schema.properties ?? {}) as object)[0] ?? 'value';
      content = JSON.stringify({ [first]: { wrong: 'type' } });
    } else if (schema) content = JSON.stringify(fill(schema, document));
    else {
      const user = request.body.messages.find((m) => m.role === 'user')?.content ?? '';
      content = JSON.stringify({
        answer: firstSentence(document),
        request: /The request: (.*)/.exec(user)?.[1] ?? null,
      });
    }
  }
  // Tokens as a tokenizer might count them: here, words (a server's own count, not Quire's estimate).
  const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
  const prompt = request.body.messages.reduce((sum, m) => sum + words(m.content), 0);
  const usage = {
    prompt_tokens: prompt,
    completion_tokens: words(content),
    total_tokens: prompt + words(content),
  };
  return {
    status: 200,
    body: {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      model: request.body.model,
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
      ...(!options.withoutUsage && { usage }),
    },
  };
}

export async function startFakeLlm(options: FakeLlmOptions = {}): Promise<FakeLlm> {
  const requests: RecordedRequest[] = [];
  let inFlight = 0;
  const fake: FakeLlm = { url: '', requests, maxInFlight: 0, tokens: 0, close: async () => {} };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => {
      raw += d.toString();
    });
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      const request: RecordedRequest = { authorization: req.headers.authorization, body: JSON.parse(raw) };
      requests.push(request);
      inFlight++;
      fake.maxInFlight = Math.max(fake.maxInFlight, inFlight);
      res.on('close', () => inFlight--);
      // Answered on the next turn, so that calls made together are seen in flight together.
      setImmediate(() => {
        const reply = answer(request, options);
        if (reply === 'hang') return;
        fake.tokens += (reply.body as { usage?: { total_tokens: number } }).usage?.total_tokens ?? 0;
        res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
