import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { limits } from '../../limits.ts';
import type { Capture } from './render-page.ts';

const mimeTypes = { png: 'image/png', jpeg: 'image/jpeg', pdf: 'application/pdf' } as const;
const NAME = /^[0-9a-f-]{36}\.(png|jpeg|pdf)$/;

/**
 * Screenshots and PDFs a scrape made, as the answer gives them: files under the data folder served
 * by Quire at an unguessable URL for `limits.screenshotTtlMs` (the contract's 24 hours), or data
 * URLs when the operator chooses them (QUIRE_SCRAPE_CAPTURES=data) and always under zero data
 * retention, where nothing may be written.
 */
export class CaptureStore {
  private readonly dir: string;
  private readonly inline: boolean;
  private readonly sweeper: NodeJS.Timeout;

  constructor(dir: string, inline: boolean) {
    this.dir = dir;
    this.inline = inline;
    this.sweeper = setInterval(() => void this.sweep(), limits.screenshotSweepMs);
    this.sweeper.unref();
    void this.sweep();
  }

  /** The capture's URL: `base` is where clients reach Quire. */
  async publish(capture: Capture, zeroDataRetention: boolean, base: string): Promise<string> {
    if (this.inline || zeroDataRetention)
      return `data:${mimeTypes[capture.type]};base64,${Buffer.from(capture.bytes).toString('base64')}`;
    const name = `${randomUUID()}.${capture.type}`;
    await fs.mkdir(this.dir, { recursive: true });
    await fs.writeFile(path.join(this.dir, name), capture.bytes);
    return `${base}/scrape/captures/${name}`;
  }

  /** GET /scrape/captures/:name, without a key (as upstream's storage URLs), until it expires. */
  routes = async (app: FastifyInstance): Promise<void> => {
    app.get<{ Params: { name: string } }>('/scrape/captures/:name', async (request, reply) => {
      const match = NAME.exec(request.params.name);
      const file = match && path.join(this.dir, request.params.name);
      const stat = file ? await fs.stat(file).catch(() => undefined) : undefined;
      if (!file || !stat || Date.now() - stat.mtimeMs > limits.screenshotTtlMs)
        return reply.code(404).send({ success: false, error: 'This capture does not exist or has expired.' });
      reply
        .type(mimeTypes[match![1] as keyof typeof mimeTypes])
        .header('cache-control', 'private, max-age=3600');
      return fs.readFile(file);
    });
  };

  close(): void {
    clearInterval(this.sweeper);
  }

  private async sweep(): Promise<void> {
    const names = await fs.readdir(this.dir).catch(() => [] as string[]);
    for (const name of names) {
      const file = path.join(this.dir, name);
      const stat = await fs.stat(file).catch(() => undefined);
      if (stat && Date.now() - stat.mtimeMs > limits.screenshotTtlMs) await fs.rm(file, { force: true });
    }
  }
}
