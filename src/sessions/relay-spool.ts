import fs from 'node:fs';

/**
 * Messages waiting for one slow CDP client, kept in a file in its session's folder rather than
 * in Quire's memory: the browser's messages all come down one pipe, so they cannot be left
 * waiting in the browser for one client without stopping every other. The file counts against
 * the session's disk cap, so a client that never reads ends its session, not Quire's memory.
 * First in, first out; each message is a 4-byte length and its UTF-8 bytes.
 */
export class RelaySpool {
  private readonly file: string;
  private fd: number | undefined;
  private writeAt = 0;
  private readAt = 0;

  constructor(file: string) {
    this.file = file;
  }

  get empty(): boolean {
    return this.readAt === this.writeAt;
  }

  /** Throws when the disk is full (ENOSPC): the caller gives up on that client. */
  push(text: string): void {
    this.fd ??= fs.openSync(this.file, 'w+', 0o600);
    const body = Buffer.from(text, 'utf8');
    const head = Buffer.alloc(4);
    head.writeUInt32LE(body.length);
    this.write(head);
    this.write(body);
  }

  private write(bytes: Buffer): void {
    for (let done = 0; done < bytes.length; ) {
      const n = fs.writeSync(this.fd!, bytes, done, bytes.length - done, this.writeAt);
      done += n;
      this.writeAt += n;
    }
  }

  shift(): string | undefined {
    if (this.empty || this.fd === undefined) return undefined;
    const head = Buffer.alloc(4);
    fs.readSync(this.fd, head, 0, 4, this.readAt);
    const body = Buffer.alloc(head.readUInt32LE());
    fs.readSync(this.fd, body, 0, body.length, this.readAt + 4);
    this.readAt += 4 + body.length;
    // Emptied: start the file over, so that it does not grow with everything ever spooled.
    if (this.empty) {
      fs.ftruncateSync(this.fd, 0);
      this.readAt = 0;
      this.writeAt = 0;
    }
    return body.toString('utf8');
  }

  close(): void {
    if (this.fd === undefined) return;
    fs.closeSync(this.fd);
    this.fd = undefined;
    fs.rmSync(this.file, { force: true });
  }
}
