/** Calls to Quire's own API from the page, with the key the user pasted. */

export interface Answer {
  status: number;
  ok: boolean;
  /** The body parsed as JSON, or undefined when it was not JSON. */
  json: unknown;
  text: string;
  ms: number;
}

export async function callApi(
  key: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: FormData | Record<string, unknown>,
): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  let payload: FormData | string | undefined;
  if (body instanceof FormData) payload = body;
  else if (body) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const started = performance.now();
  const res = await fetch(path, { method, headers, body: payload });
  const text = await res.text();
  const ms = Math.round(performance.now() - started);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, ok: res.ok, json, text, ms };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const stringOr = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const strings = (v: unknown): string[] | undefined =>
  Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : undefined;

/** What /v2/parse puts in `data`, read defensively: the page shows whatever came back. */
export interface ParsedDocument {
  markdown?: string;
  html?: string;
  rawHtml?: string;
  summary?: string;
  links?: string[];
  images?: string[];
  json?: unknown;
  metadata: Record<string, unknown>;
  warning?: string;
}

export function readDocument(json: unknown): ParsedDocument | undefined {
  if (!isRecord(json) || json.success !== true || !isRecord(json.data)) return undefined;
  const d = json.data;
  return {
    markdown: stringOr(d.markdown),
    html: stringOr(d.html),
    rawHtml: stringOr(d.rawHtml),
    summary: stringOr(d.summary),
    links: strings(d.links),
    images: strings(d.images),
    json: d.json,
    metadata: isRecord(d.metadata) ? d.metadata : {},
    warning: stringOr(d.warning),
  };
}

export interface Session {
  id: string;
  status: string;
  liveViewUrl?: string;
  createdAt?: string;
  lastActivity?: string;
}

export function readSessions(json: unknown): Session[] {
  if (!isRecord(json) || !Array.isArray(json.sessions)) return [];
  return json.sessions.filter(isRecord).map((s) => ({
    id: String(s.id),
    status: String(s.status),
    liveViewUrl: stringOr(s.liveViewUrl),
    createdAt: stringOr(s.createdAt),
    lastActivity: stringOr(s.lastActivity),
  }));
}

/** The words of an error answer: its `error` field when it has one, else the text. */
export function errorText(answer: Answer): string {
  const error = isRecord(answer.json) ? stringOr(answer.json.error) : undefined;
  return error ?? (answer.text || `HTTP ${answer.status}`);
}
