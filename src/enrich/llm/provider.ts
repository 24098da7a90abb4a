import type { Config } from '../../config.ts';
import { limits } from '../../limits.ts';
import { Slots } from '../../quota/slots.ts';
import { isJsonObject, type JsonObject } from '../json.ts';
import type { ModelSettings } from '../plan.ts';

/**
 * One small interface over any OpenAI-compatible chat endpoint (OpenAI, Azure OpenAI, Ollama,
 * vLLM, llama.cpp's server, LiteLLM). Plain `fetch` to `/chat/completions` rather than the
 * `openai` client: it is one endpoint, the request's own deadline must govern every call (the
 * client adds timeouts and retries of its own), and the servers differ in what they refuse, which
 * is read from their raw error bodies.
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export type ResponseFormat =
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; schema: JsonObject; strict: boolean } };

export interface ChatRequest {
  messages: ChatMessage[];
  responseFormat?: ResponseFormat;
  maxTokens: number;
  signal: AbortSignal;
  /** Told the tokens an answered call spent (prompt and answer), for the team's usage. */
  onTokens?: (tokens: number) => void;
}

export interface LanguageModel {
  readonly settings: ModelSettings;
  /**
   * Whether the server accepts each structured-output mode: assumed until it refuses one, then
   * remembered, so later calls go straight to what works.
   */
  readonly accepts: { json_schema: boolean; json_object: boolean };
  /** The answer's text. Throws ModelError. */
  complete(request: ChatRequest): Promise<string>;
}

export class ModelError extends Error {
  /** The server refused the requested response_format (an older or simpler server). */
  readonly refusedFormat: boolean;

  constructor(message: string, refusedFormat = false) {
    super(message);
    this.name = 'ModelError';
    this.refusedFormat = refusedFormat;
  }
}

/** Azure OpenAI authenticates with an `api-key` header; everyone else with a bearer token. */
function authHeaders(url: URL, key: string): Record<string, string> {
  if (!key) return {};
  return /\.(?:openai|cognitiveservices)\.azure\.com$/.test(url.hostname)
    ? { 'api-key': key }
    : { authorization: `Bearer ${key}` };
}

/** The answer's bytes, up to limits.llmResponseBytes: a misbehaving server cannot fill memory. */
async function readCapped(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limits.llmResponseBytes) {
      await reader.cancel();
      throw new ModelError(`the model's answer exceeded ${limits.llmResponseBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The server's own error message, from the shapes OpenAI-compatible servers answer with. */
function errorMessage(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    if (isJsonObject(parsed)) {
      const error = parsed.error;
      if (typeof error === 'string') return error;
      if (isJsonObject(error) && typeof error.message === 'string') return error.message;
      if (typeof parsed.message === 'string') return parsed.message;
    }
  } catch {
    // not JSON: the text as it is
  }
  return body.trim();
}

/**
 * The tokens a call spent: as the server reports them (`usage.total_tokens`, which OpenAI,
 * vLLM, llama.cpp's server and Ollama send), else estimated from the characters sent and answered.
 */
function tokensSpent(parsed: unknown, request: ChatRequest, answer: string): number {
  const usage = isJsonObject(parsed) ? parsed.usage : undefined;
  const total = isJsonObject(usage) ? usage.total_tokens : undefined;
  if (typeof total === 'number' && Number.isFinite(total) && total >= 0) return Math.round(total);
  const chars = request.messages.reduce((sum, m) => sum + m.content.length, answer.length);
  return Math.ceil(chars / limits.llmCharsPerToken);
}

function answerText(body: string, request: ChatRequest): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new ModelError('the model server answered with something other than JSON');
  }
  const choices = isJsonObject(parsed) ? parsed.choices : undefined;
  const message = Array.isArray(choices) && isJsonObject(choices[0]) ? choices[0].message : undefined;
  if (isJsonObject(message) && typeof message.content === 'string') {
    request.onTokens?.(tokensSpent(parsed, request, message.content));
    return message.content;
  }
  if (isJsonObject(message) && typeof message.refusal === 'string')
    throw new ModelError(`the model refused: ${message.refusal}`);
  throw new ModelError('the model server answered without a message');
}

export interface ModelOptions {
  baseUrl: string;
  apiKey: string;
  model: string;
  concurrency: number;
  zeroRetention: boolean;
  maxInputTokens: number;
}

export class OpenAICompatibleModel implements LanguageModel {
  readonly settings: ModelSettings;
  readonly accepts = { json_schema: true, json_object: true };
  private readonly url: URL;
  private readonly headers: Record<string, string>;
  private readonly model: string;
  private readonly slots: Slots;
  /** Newer OpenAI models take `max_completion_tokens` and refuse `max_tokens` and `temperature`. */
  private readonly parameters = { tokenField: 'max_tokens', temperature: true };

  constructor(options: ModelOptions) {
    // `…/v1` + `/chat/completions`, keeping a query (Azure's `?api-version=`).
    this.url = new URL(options.baseUrl);
    this.url.pathname = `${this.url.pathname.replace(/\/+$/, '')}/chat/completions`;
    this.headers = { 'content-type': 'application/json', ...authHeaders(this.url, options.apiKey) };
    this.model = options.model;
    this.slots = new Slots(options.concurrency);
    this.settings = { zeroRetention: options.zeroRetention, maxInputTokens: options.maxInputTokens };
  }

  async complete(request: ChatRequest): Promise<string> {
    const release = await this.slots.acquire(request.signal);
    try {
      // A parameter the server names as unsupported is dropped or renamed, once each.
      for (let attempt = 0; ; attempt++) {
        const res = await fetch(this.url, {
          method: 'POST',
          headers: this.headers,
          body: JSON.stringify(this.body(request)),
          signal: request.signal,
        });
        const text = await readCapped(res);
        if (res.ok) return answerText(text, request);
        const message = errorMessage(text).slice(0, limits.llmErrorChars);
        if (res.status === 400 && attempt < 2 && this.adapt(message)) continue;
        const refused =
          (res.status === 400 || res.status === 422) &&
          /response_format|json_schema|json_object|schema/i.test(message);
        throw new ModelError(
          `the model server answered ${res.status}${message ? `: ${message}` : ''}`,
          refused,
        );
      }
    } catch (error) {
      throw describeFailure(error, request.signal);
    } finally {
      release();
    }
  }

  private body(request: ChatRequest): JsonObject {
    const body: JsonObject = {
      model: this.model,
      messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
      [this.parameters.tokenField]: request.maxTokens,
    };
    // Temperature 0: the same document gives the same summary and values.
    if (this.parameters.temperature) body.temperature = 0;
    if (request.responseFormat) body.response_format = request.responseFormat as unknown as JsonObject;
    return body;
  }

  private adapt(message: string): boolean {
    if (/max_tokens/.test(message) && this.parameters.tokenField === 'max_tokens') {
      this.parameters.tokenField = 'max_completion_tokens';
      return true;
    }
    if (/temperature/.test(message) && this.parameters.temperature) {
      this.parameters.temperature = false;
      return true;
    }
    return false;
  }
}

/**
 * The model as one account uses it: each answered call's tokens are added to that account's
 * usage before its answer is handed on, so a usage read after the answer counts them.
 */
export function meteredModel(model: LanguageModel, record: (tokens: number) => Promise<void>): LanguageModel {
  return {
    settings: model.settings,
    accepts: model.accepts,
    async complete(request) {
      let tokens = 0;
      const text = await model.complete({ ...request, onTokens: (n) => (tokens += n) });
      await record(tokens);
      return text;
    },
  };
}

/** A failure as a ModelError whose message can go in a warning. */
function describeFailure(error: unknown, signal: AbortSignal): Error {
  if (error instanceof ModelError) return error;
  if (signal.aborted) {
    const reason: unknown = signal.reason;
    if (reason instanceof DOMException && reason.name === 'TimeoutError')
      return new ModelError("the model did not answer within the request's timeout");
    return reason instanceof Error ? reason : new Error(String(reason));
  }
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return new ModelError(
    `the model server could not be reached (${error instanceof Error ? error.message : String(error)}${cause})`,
  );
}

/** The configured model, or undefined when QUIRE_LLM_BASE_URL is not set (the offline methods then run). */
export function configuredModel(config: Config): LanguageModel | undefined {
  if (!config.QUIRE_LLM_BASE_URL) return undefined;
  if (!config.QUIRE_LLM_MODEL)
    throw new Error(
      'QUIRE_LLM_MODEL must name the model (the deployment, for Azure OpenAI) when QUIRE_LLM_BASE_URL is set.',
    );
  return new OpenAICompatibleModel({
    baseUrl: config.QUIRE_LLM_BASE_URL,
    apiKey: config.QUIRE_LLM_API_KEY,
    model: config.QUIRE_LLM_MODEL,
    concurrency: config.QUIRE_LLM_CONCURRENCY,
    zeroRetention: config.QUIRE_LLM_ZERO_RETENTION,
    maxInputTokens: config.QUIRE_LLM_MAX_INPUT_TOKENS,
  });
}
