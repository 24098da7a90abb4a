import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * What a closing server calls, again and again until it has closed, to end the connections with
 * nothing in flight: those between two requests (Node's closeIdleConnections), and those on
 * which the client has not sent a byte, which Node leaves open. Browsers open such connections
 * ahead of need, and an HTTP client keeps the one an aborted request never used; once the server
 * closes, Node stops timing out their headers, so each would hold the shutdown open until its
 * grace ran out and the process exited 1.
 */
export function quietConnectionCloser(server: Server): () => void {
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  return () => {
    server.closeIdleConnections();
    for (const socket of open) if (socket.bytesRead === 0) socket.destroy();
  };
}
