/**
 * One loopback origin in front of several broker stubs, by path prefix: an install has one
 * `BROKER_API_BASE_URL` for every broker app (each real broker has its own origin, which the
 * tests replace), so a test with users at two brokers points it here and each broker's paths
 * reach its own stub (Angel's `/rest/…`, Dhan's `/v2/…`). Method, headers and body pass as sent;
 * the answer comes back as the stub gave it.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BrokerRoute {
  /** A path prefix of the router (`/v2/rest/`). */
  prefix: string;
  /** The stub's origin (`http://127.0.0.1:1234`). */
  origin: string;
  /** What the prefix becomes on the stub (default: the prefix itself). */
  rewrite?: string;
}

export class BrokerRouter {
  private constructor(private readonly server: Server) {}

  /** Starts a router; a path no route takes is answered 502. The longest prefix wins. */
  static async start(routes: readonly BrokerRoute[]): Promise<BrokerRouter> {
    const sorted = [...routes].sort((a, b) => b.prefix.length - a.prefix.length);
    const server = createServer((req, res) => {
      const url = req.url ?? '/';
      const route = sorted.find((r) => url.startsWith(r.prefix));
      if (!route) {
        res.writeHead(502, { 'content-type': 'text/plain' }).end(`no stub for ${url}`);
        return;
      }
      const target = new URL(route.origin);
      const path = (route.rewrite ?? route.prefix) + url.slice(route.prefix.length);
      const headers = { ...req.headers, host: target.host };
      const out = request(
        { host: target.hostname, port: target.port, method: req.method, path, headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on('error', () => res.headersSent || res.writeHead(502).end('stub unreachable'));
      req.pipe(out);
    });
    server.keepAliveTimeout = 1_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new BrokerRouter(server);
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
