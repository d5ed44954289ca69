import { request } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { registerRequestPipeline } from './request-pipeline.js';
import type { App } from './types.js';

const BIG = 32 * 1024 * 1024;

/**
 * The request hooks on a bare Fastify app with recording stand-ins for the services they feed:
 * the rules are about which traffic rows are written and when a request stops being in flight.
 */
async function harness() {
  const rows: { url: string; status: number }[] = [];
  const ended: string[] = [];
  const app = Fastify() as unknown as App;
  const pipeline = registerRequestPipeline(app, { trustProxyHeaders: false });
  pipeline.observer = {
    ended: (req, _reply, status) => {
      rows.push({ url: req.url, status });
      ended.push(req.id);
    },
  };
  pipeline.gate = { admits: () => true, deny: () => undefined };
  const { inFlight } = pipeline;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let handled = false;
  app.get('/ok', async () => ({ ok: true }));
  app.post('/echo', async (req) => req.body);
  app.get('/slow', async () => {
    await gate;
    handled = true;
    return { ok: true };
  });
  // The client is gone (its connection destroyed) just before the handler answers.
  app.get('/gone', (req, reply) => {
    req.raw.socket.destroy();
    return reply.code(201).send({ ok: true });
  });
  // An answer larger than the socket buffers: ended at once, flushed only as the client reads.
  app.get('/big', (_req, reply) => reply.code(201).type('text/plain').send('x'.repeat(BIG)));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  /** Sends a GET; resolves with the status, or 0 when the connection closed without an answer. */
  const get = (path: string, abortAfterMs?: number) =>
    new Promise<number>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', () => resolve(0));
      req.on('close', () => resolve(0));
      if (abortAfterMs !== undefined) setTimeout(() => req.destroy(), abortAfterMs);
      req.end();
    });
  /** Sends a GET over a raw socket and closes it as soon as the first bytes of the answer arrive. */
  const getAndLeaveEarly = (path: string) =>
    new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () =>
        socket.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`),
      );
      socket.once('data', (chunk: Buffer) => {
        socket.destroy();
        resolve(chunk.toString('latin1').split('\r\n')[0]!);
      });
    });
  /** Declares a JSON body of 1,000 bytes, sends 10 and closes the connection. */
  const postHalfABody = (path: string) =>
    new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"a":"bbbb`,
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
    });
  return {
    app,
    inFlight,
    rows,
    ended,
    get,
    getAndLeaveEarly,
    postHalfABody,
    release,
    wasHandled: () => handled,
  };
}

let h: Awaited<ReturnType<typeof harness>> | undefined;
afterEach(async () => {
  h?.release();
  await h?.app.close();
  h = undefined;
});

describe('every request has one traffic row', () => {
  it('an answered request: its status, once, and it is no longer in flight', async () => {
    h = await harness();
    expect(await h.get('/ok')).toBe(200);
    await vi.waitFor(() => expect(h!.rows.map((r) => [r.url, r.status])).toEqual([['/ok', 200]]));
    // The connection closing later does not add a second row.
    await new Promise((r) => setTimeout(r, 30));
    expect(h.rows).toHaveLength(1);
    expect(h.ended).toHaveLength(1);
    expect(h.inFlight.count).toBe(0);
  });

  it('a client that leaves while the answer is being written: the answered status', async () => {
    h = await harness();
    expect(await h.getAndLeaveEarly('/big')).toBe('HTTP/1.1 201 Created');
    await vi.waitFor(() => expect(h!.rows.map((r) => [r.url, r.status])).toEqual([['/big', 201]]));
    expect(h.inFlight.count).toBe(0);
    expect(await h.inFlight.drained(1000)).toBe(true);
  });

  it('a client gone just before the handler answers (the answer is dropped, no "finish"): 499, not a lost row', async () => {
    h = await harness();
    expect(await h.get('/gone')).toBe(0);
    await vi.waitFor(() => expect(h!.rows.map((r) => [r.url, r.status])).toEqual([['/gone', 499]]));
    expect(h.inFlight.count).toBe(0);
    expect(await h.inFlight.drained(1000)).toBe(true);
  });

  it('a client that leaves before the answer: status 499, and in flight until its handler is done', async () => {
    h = await harness();
    expect(await h.get('/slow', 50)).toBe(0);
    await vi.waitFor(() => expect(h!.rows.map((r) => [r.url, r.status])).toEqual([['/slow', 499]]));
    expect(h.inFlight.count).toBe(1);
    const drained = h.inFlight.drained(5000);
    h.release();
    expect(await drained).toBe(true);
    expect(h.wasHandled()).toBe(true);
    expect(h.rows).toHaveLength(1);
  });
});

describe('a client that leaves in the middle of its body', () => {
  it('is logged as 499 and does not hold shutdown', async () => {
    h = await harness();
    await h.postHalfABody('/echo');
    await vi.waitFor(() => expect(h!.rows.map((r) => [r.url, r.status])).toEqual([['/echo', 499]]));
    await vi.waitFor(() => expect(h!.inFlight.count).toBe(0));
    expect(await h.inFlight.drained(1000)).toBe(true);
  });
});

describe('the shutdown drain is bounded', () => {
  it('drained(ms) answers false when a request is still in flight past the bound', async () => {
    h = await harness();
    const answer = h.get('/slow');
    await vi.waitFor(() => expect(h!.inFlight.count).toBe(1));
    expect(await h.inFlight.drained(50)).toBe(false);
    h.release();
    expect(await answer).toBe(200);
    expect(await h.inFlight.drained(1000)).toBe(true);
  });
});
