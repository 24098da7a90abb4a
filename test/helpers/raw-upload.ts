import http from 'node:http';

/** The boundary of the multipart bodies written by hand here. */
export const boundary = 'quire-raw-upload';

/** The start of a multipart body whose file part is named `filename`, up to the file's bytes. */
export function filePartHead(filename: string): string {
  return `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n\r\n`;
}

/** What ends the body after the file's bytes. */
export const filePartTail = `\r\n--${boundary}--\r\n`;

/**
 * A parse request whose body the test writes itself, with `contentLength` declared up front, so
 * that it can send part of a body and see what the server does before (or without) the rest.
 */
export function rawParse(
  base: string,
  key: string,
  contentLength: number,
): { request: http.ClientRequest; answer: Promise<{ status: number; text: string }> } {
  const url = new URL(`${base}/v2/parse`);
  const request = http.request({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': contentLength,
    },
  });
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    request.on('response', (res) => {
      let text = '';
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    request.on('error', reject);
  });
  return { request, answer };
}
