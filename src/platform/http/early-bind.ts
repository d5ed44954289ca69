/**
 * The port, bound before anything else starts: a second instance on a busy port (or a `HOST`
 * that is not this machine's) stops here, before it opens the database, starts an engine or a
 * timer. Connections that arrive while the app is still starting wait, paused and unread, and are
 * handed to the HTTP server once it takes over the bound socket — none is refused or lost.
 */
import { lookup } from 'node:dns/promises';
import { isIP, createServer, type Server as NetServer, type Socket } from 'node:net';
import type { Server as HttpServer } from 'node:http';
import { StartupError } from '../startup-error.js';

/** A bound, listening port the app's server takes over. */
export interface EarlyBinding {
  /** The address actually bound (a `HOST` name resolved to one of its addresses). */
  readonly address: string;
  readonly port: number;
  /** Options for `app.listen`: the bound socket, so the server adopts it instead of binding again. */
  listenOptions(): { host: string; port: number };
  /** Gives the connections that arrived before the server was listening to `server`. */
  handOver(server: HttpServer): void;
  /** Releases the port (start-up failed before the server took it over). */
  close(): Promise<void>;
}

/** Why a bind failed, in the operator's words, naming the variable to change. */
function bindFailure(err: NodeJS.ErrnoException, host: string, port: number): StartupError {
  switch (err.code) {
    case 'EADDRINUSE':
      return new StartupError(`port ${port} is in use (PORT)`);
    case 'EACCES':
      return new StartupError(`port ${port} needs privileges this user does not have (PORT)`);
    case 'EADDRNOTAVAIL':
      return new StartupError(`${host} is not an address of this machine (HOST)`);
    default:
      return new StartupError(`cannot listen on ${host}:${port}: ${err.code ?? err.message} (HOST, PORT)`);
  }
}

/** `host` as an address: itself when it is one, else its first address from the resolver. */
export async function resolveHost(host: string): Promise<string> {
  if (isIP(host)) return host;
  try {
    return (await lookup(host)).address;
  } catch (err) {
    throw new StartupError(
      `HOST "${host}" does not resolve (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

/** Binds `host:port` now (exclusively: a cluster worker would otherwise share it). */
export async function bindEarly(host: string, port: number): Promise<EarlyBinding> {
  const address = await resolveHost(host);
  const waiting = new Set<Socket>();
  const holder: NetServer = createServer({ pauseOnConnect: true }, (socket) => {
    waiting.add(socket);
    socket.once('close', () => waiting.delete(socket));
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    holder.once('error', (err: NodeJS.ErrnoException) => reject(bindFailure(err, host, port)));
    holder.listen({ host: address, port, exclusive: true }, () => resolve());
  });
  let adopted = false;
  return {
    address,
    port,
    listenOptions() {
      adopted = true;
      // Node's `listen` takes an existing handle (`options.handle`, as its cluster module passes
      // one): the server accepts on the socket bound above, with no moment where the port is free.
      const handle = (holder as unknown as { _handle: unknown })._handle;
      return { handle, host: address, port } as { host: string; port: number };
    },
    handOver(server) {
      for (const socket of waiting) {
        waiting.delete(socket);
        if (socket.destroyed) continue;
        server.emit('connection', socket);
        socket.resume();
      }
    },
    async close() {
      for (const socket of waiting) socket.destroy();
      if (!adopted) await new Promise<void>((resolve) => holder.close(() => resolve()));
    },
  };
}
