import type { ConnectionTransport } from 'puppeteer-core';
import type { BrowserPipe, CdpCommand } from '../../sessions/cdp-pipe.ts';

/**
 * Puppeteer's transport over a browser session of its own on the sessions' CDP pipe: the browser
 * listens on no port (as for interact sessions), and Puppeteer gets a connection that behaves as
 * Chromium's own (its browser session, flat sessions for pages).
 */
export async function pipeTransport(pipe: BrowserPipe): Promise<ConnectionTransport> {
  const transport: ConnectionTransport = {
    send: (message) => session.send(JSON.parse(message) as CdpCommand),
    close: () => {
      session.close();
      transport.onclose?.();
    },
  };
  const session = await pipe.openSession({
    message: (text) => transport.onmessage?.(text),
    closed: () => transport.onclose?.(),
  });
  return transport;
}
