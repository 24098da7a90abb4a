import http from 'node:http';
import type { Reply } from './sessions.ts';

/** The version firecrawl-py stamps into `origin`. */
export const pythonSdkOrigin = 'python-sdk@4.54.0';

/**
 * Sends what firecrawl-py's HttpClient (v2, over `requests`) sends, byte for byte where it
 * matters: `Content-Type: application/json` and the bearer key on every request, GET and DELETE
 * included; no body on GET; `Content-Length: 0` and no body on DELETE (requests adds it to every
 * bodiless method but GET and HEAD); POST bodies with `origin` added. node:http rather than fetch,
 * which would drop that Content-Length and add headers of its own.
 */
export class PythonSdkClient {
  private readonly apiUrl: string;
  private readonly apiKey: string;

  constructor(apiUrl: string, apiKey: string) {
    this.apiUrl = apiUrl;
    this.apiKey = apiKey;
  }

  get(endpoint: string): Promise<Reply> {
    return this.send('GET', endpoint);
  }

  delete(endpoint: string): Promise<Reply> {
    return this.send('DELETE', endpoint, '');
  }

  post(endpoint: string, data: Record<string, unknown>): Promise<Reply> {
    return this.send('POST', endpoint, JSON.stringify({ ...data, origin: pythonSdkOrigin }));
  }

  /** A request with these headers and this body exactly as given (undefined: no body at all). */
  send(method: string, endpoint: string, body?: string): Promise<Reply> {
    const headers: Record<string, string> = {
      'user-agent': 'python-requests/2.32.5',
      accept: '*/*',
      'content-type': 'application/json',
      authorization: `Bearer ${this.apiKey}`,
    };
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    return new Promise((resolve, reject) => {
      const request = http.request(new URL(endpoint, this.apiUrl), { method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const replyHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) replyHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
          }
          try {
            resolve({
              status: res.statusCode ?? 0,
              body: text ? JSON.parse(text) : {},
              headers: replyHeaders,
            });
          } catch {
            reject(
              new Error(
                `${method} ${endpoint} answered ${res.statusCode} with non-JSON: ${text.slice(0, 200)}`,
              ),
            );
          }
        });
      });
      request.on('error', reject);
      request.end(body);
    });
  }
}
