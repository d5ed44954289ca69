/**
 * The loopback HTTP server under the tests' stand-ins of outside services (node:http on
 * 127.0.0.1, port 0): every request is recorded with its parsed JSON body, answered by the next
 * scripted answer when there is one, else by the stand-in's own `answer` (written from the
 * service's documentation), optionally after a delay. A subclass says only what the service
 * answers.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the stub received. */
export interface StubRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Parsed JSON body (undefined when not JSON). */
  json: Record<string, unknown> | undefined;
}

/** An answer: an object body is sent as JSON, a string as text/plain. */
export interface StubAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Answer only after this many ms (a slow server). */
  delayMs?: number;
}

export abstract class ScriptedStub {
  readonly requests: StubRequest[] = [];
  private readonly script: StubAnswer[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private server: Server | undefined;
  url = '';

  /** What the service answers a request nobody scripted. */
  protected abstract answer(req: StubRequest): StubAnswer;

  /** The next answers, in order, whatever the request (after it is recorded). */
  answerNext(...answers: StubAnswer[]): void {
    this.script.push(...answers);
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: Record<string, unknown> | undefined;
        try {
          json = JSON.parse(body) as Record<string, unknown>;
        } catch {
          json = undefined;
        }
        const path = new URL(req.url ?? '/', 'http://stub').pathname;
        const request: StubRequest = { method: req.method ?? '', path, headers: req.headers, body, json };
        this.requests.push(request);
        const answer = this.script.shift() ?? this.answer(request);
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          if (res.destroyed) return;
          const isJson = typeof answer.body !== 'string';
          res.writeHead(answer.status, {
            'content-type': isJson ? 'application/json' : 'text/plain',
            ...answer.headers,
          });
          res.end(isJson ? JSON.stringify(answer.body) : (answer.body as string));
        }, answer.delayMs ?? 0);
        this.timers.add(timer);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
