/**
 * Loopback broker stubs of the live benches: {@link BrokerStub} (the server, its keep-alive and
 * its connection count) and {@link KiteStub}, a minimal Kite Connect v3 order endpoint for
 * `placeorder-live` (its three sides each call one of their own).
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * How long the stub keeps an idle keep-alive socket: nginx's default, about what Kite's front
 * end does. Node's default (5 s) would close the adapter's sockets while the direct side runs,
 * and the reconnections would be the stub's doing, not algodesk's.
 */
const STUB_KEEP_ALIVE_MS = 75_000;

/**
 * A broker's HTTP front on `127.0.0.1:0` that keeps idle sockets as a broker's does and counts the
 * TCP connections it accepts (the benches check that algodesk reuses its pool's).
 */
export abstract class BrokerStub {
  connections = 0;
  private readonly server: Server;

  constructor() {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.keepAliveTimeout = STUB_KEEP_ALIVE_MS;
    this.server.headersTimeout = STUB_KEEP_ALIVE_MS + 1_000;
    this.server.on('connection', () => this.connections++);
  }

  async listen(): Promise<number> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return (this.server.address() as AddressInfo).port;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  protected abstract handle(req: IncomingMessage, res: ServerResponse): void;
}

/**
 * A minimal Kite Connect v3 order endpoint on loopback: `POST /orders/regular` with Kite's
 * headers and a form body answers `{"status":"success","data":{"order_id":…}}`; a wrong
 * `Authorization` answers Kite's 403 TokenException, a form without the order fields its 400
 * InputException, anything else 404. Counts the TCP connections it accepts.
 */
export class KiteStub extends BrokerStub {
  orders = 0;
  /** Headers and body of the last order accepted (to send the same bytes directly). */
  last: { headers: Record<string, string>; body: string } | undefined;
  private nextId = 251122000000000;

  constructor(
    readonly label: string,
    /** The `Authorization` header Kite accepts: `token <api_key>:<access_token>`. */
    private readonly authorization: string,
  ) {
    super();
  }

  protected handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/orders/regular')
        return send(res, 404, {
          status: 'error',
          message: 'Route not found',
          error_type: 'GeneralException',
        });
      if (req.headers.authorization !== this.authorization || req.headers['x-kite-version'] !== '3')
        return send(res, 403, {
          status: 'error',
          message: 'Incorrect `api_key` or `access_token`.',
          error_type: 'TokenException',
        });
      const body = Buffer.concat(chunks).toString('utf8');
      const form = new URLSearchParams(body);
      const missing = [
        'tradingsymbol',
        'exchange',
        'transaction_type',
        'order_type',
        'quantity',
        'product',
      ].filter((f) => !form.get(f));
      if (
        !String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded') ||
        missing.length
      )
        return send(res, 400, {
          status: 'error',
          message: `Missing ${missing.join(', ') || 'form body'}`,
          error_type: 'InputException',
        });
      this.orders++;
      this.last = {
        headers: {
          authorization: req.headers.authorization,
          'x-kite-version': '3',
          'content-type': 'application/x-www-form-urlencoded',
        },
        body,
      };
      send(res, 200, { status: 'success', data: { order_id: String(this.nextId++) } });
    });
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': bytes.length }).end(bytes);
}
