/**
 * The broker-neutral core of the loopback broker stubs (node:http on 127.0.0.1, port 0), so
 * broker clients are tested over real HTTP (keep-alive, timeouts, status codes) with no network.
 *
 * {@link BrokerStub}: routes, exact credential check, a record of every request (headers without
 * the credential; only whether it matched), scripted failures and delays, and counts of accepted
 * and open TCP connections. Endpoints are added with {@link BrokerStub.route}. Also the market
 * depth both brokers' quotes share ({@link depth}).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A delay that outlasts the tests' broker timeouts (300–500 ms) for sure. The clients' timeouts
 * are undici's `headersTimeout`, which runs on undici's coarse timers (ticks of ~0.5 s, and late
 * on a busy event loop): a 300 ms timeout fires 0.3–1 s later on an idle machine, so an answer
 * delayed by only 1 s sometimes came first on a loaded one and the test saw 200, not 504.
 */
export const SLOWER_THAN_TIMEOUT_MS = 3_000;

/** A request as the stub saw it. The credential itself is never kept, only `authOk`. */
export interface RecordedRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  path: string;
  query: URLSearchParams;
  /** Request headers less `authorization`. */
  headers: IncomingHttpHeaders;
  body: string;
  /** Whether the credential headers were exactly the configured ones. */
  authOk: boolean;
}

/** An answer: an object body is sent as JSON, a string as is (`text/html` unless headers say). */
export interface StubAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Answers one route; runs only for requests whose credentials matched. */
export type StubHandler = (req: RecordedRequest) => StubAnswer | Promise<StubAnswer>;

/** How a broker authenticates: the exact check and its documented refusal. */
export interface StubAuth {
  check(headers: IncomingHttpHeaders): boolean;
  refusal(): StubAnswer;
}

/** The broker-neutral loopback server; see the file comment. */
export class BrokerStub {
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  /** TCP connections accepted since start (keep-alive reuse keeps this at 1). */
  connections = 0;
  /** TCP connections open now. */
  openConnections = 0;
  private readonly routes = new Map<string, StubHandler>();
  private readonly prefixRoutes: [string, StubHandler][] = [];
  private readonly failures: StubAnswer[] = [];
  private readonly delays: number[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private server: Server | undefined;
  private origin = '';

  constructor(private readonly auth: StubAuth) {}

  /** `http://127.0.0.1:<port>`, the client's base URL. */
  get url(): string {
    return this.origin;
  }

  /** Serves `method path` (path without query) with `handler`. */
  route(method: string, path: string, handler: StubHandler): this {
    this.routes.set(`${method.toUpperCase()} ${path}`, handler);
    return this;
  }

  /** Serves every `method` path that starts with `prefix` (no exact route matched). */
  routePrefix(method: string, prefix: string, handler: StubHandler): this {
    this.prefixRoutes.push([`${method.toUpperCase()} ${prefix}`, handler]);
    return this;
  }

  /** The next `times` requests, whatever they are, get this answer (after any delay). */
  failNext(status: number, body: unknown, times = 1, headers?: Record<string, string>): void {
    for (let i = 0; i < times; i++) this.failures.push({ status, body, headers });
  }

  /** The next `times` requests are answered only after `ms` milliseconds. */
  delayNext(ms: number, times = 1): void {
    for (let i = 0; i < times; i++) this.delays.push(ms);
  }

  /** Forgets recorded requests and pending failures and delays (connection counts stay). */
  reset(): void {
    this.requests.length = 0;
    this.failures.length = 0;
    this.delays.length = 0;
  }

  /** Listens on 127.0.0.1 with an ephemeral port. */
  async start(): Promise<this> {
    // Kite's 500 `i=` parameters make request lines of ~15 KB, near Node's 16 KiB default.
    const server = createServer({ maxHeaderSize: 64 * 1024 }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://stub');
        const headers = { ...req.headers };
        delete headers.authorization;
        const recorded: RecordedRequest = {
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          path: url.pathname,
          query: url.searchParams,
          headers,
          body: Buffer.concat(chunks).toString('utf8'),
          authOk: this.auth.check(req.headers),
        };
        this.requests.push(recorded);
        const delay = this.delays.shift() ?? 0;
        const send = (answer: StubAnswer) => {
          if (res.destroyed) return;
          const json = typeof answer.body !== 'string';
          const text = json ? JSON.stringify(answer.body) : (answer.body as string);
          res.writeHead(answer.status, {
            'content-type': json ? 'application/json' : 'text/html',
            ...answer.headers,
          });
          res.end(text);
        };
        // A delay of 0 still answers from a timer, so close() discards every pending answer.
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          void this.answer(recorded).then(send, (err: unknown) =>
            send({ status: 500, body: `stub handler failed: ${String(err)}` }),
          );
        }, delay);
        this.timers.add(timer);
      });
    });
    server.on('connection', (socket) => {
      this.connections++;
      this.openConnections++;
      socket.on('close', () => this.openConnections--);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  private async answer(req: RecordedRequest): Promise<StubAnswer> {
    const failure = this.failures.shift();
    if (failure) return failure;
    if (!req.authOk) return this.auth.refusal();
    const line = `${req.method} ${req.path}`;
    const handler =
      this.routes.get(line) ?? this.prefixRoutes.find(([prefix]) => line.startsWith(prefix))?.[1];
    if (!handler)
      return { status: 404, body: { status: 'error', message: `stub: no route ${req.method} ${req.path}` } };
    return handler(req);
  }

  /** Stops listening and drops every connection (pending delayed answers are discarded). */
  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** One level of market depth as both brokers send it. */
export interface DepthLevel {
  price: number;
  quantity: number;
  orders: number;
}

/** Five depth levels: the given ones, then rows of zeros, as both brokers pad an empty book. */
export function depth(
  levels: readonly (readonly [price: number, quantity: number, orders?: number])[],
): DepthLevel[] {
  const out = levels.slice(0, 5).map(([price, quantity, orders = 1]) => ({ price, quantity, orders }));
  while (out.length < 5) out.push({ price: 0, quantity: 0, orders: 0 });
  return out;
}
