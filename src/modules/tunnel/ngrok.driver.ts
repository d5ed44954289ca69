/**
 * The real tunnel on the official ngrok Node SDK (`@ngrok/ngrok`: in-process, no agent binary).
 *
 * The SDK runs in a worker thread of this process. Its `connect()` has no timeout and cannot be
 * cancelled: against a peer that accepts TCP but never completes the handshake it waited for
 * minutes in our tests, and a pending native call keeps the event loop alive. In a worker,
 * `terminate()` ends it at once, so start-up is bounded and shutdown leaves nothing behind; the
 * worker is unref'd so the tunnel is never what keeps the process running. Process exit ends the
 * worker with the process, and with it the session to ngrok.
 *
 * The auth token is ngrok's own `NGROK_AUTHTOKEN`, read with the rest of the configuration
 * (config.ts) and handed to the worker, which gives it to the SDK and cuts its value out of SDK
 * messages before they leave the worker (the manager scrubs token shapes again). It is never
 * logged or stored.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { TunnelDriver, TunnelRequest } from './tunnel.types.js';

/** The worker: plain CommonJS evaluated by `new Worker(..., { eval: true })`, so it runs the same from src/ and dist/. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const secret = workerData.authtoken;
const scrub = (m) => {
  let s = String(m && m.message !== undefined ? m.message : m);
  if (secret) s = s.split(secret).join('[redacted]');
  return s;
};
let session;
let listener;
async function open() {
  const ngrok = require(workerData.sdk);
  const builder = new ngrok.SessionBuilder();
  if (secret) builder.authtoken(secret);
  if (workerData.serverAddr) builder.serverAddr(workerData.serverAddr);
  builder.handleDisconnection((_addr, error) => {
    parentPort.postMessage({ type: 'lost', message: scrub(error) });
    return true;
  });
  session = await builder.connect();
  const endpoint = session.httpEndpoint();
  if (workerData.domain) endpoint.domain(workerData.domain);
  listener = await endpoint.listenAndForward(workerData.forwardTo);
  parentPort.postMessage({ type: 'up', url: listener.url() });
}
parentPort.on('message', async (m) => {
  if (m.type !== 'close') return;
  try {
    if (listener) await listener.close();
    if (session) await session.close();
  } catch {}
  parentPort.postMessage({ type: 'closed' });
});
open().catch((err) => parentPort.postMessage({ type: 'error', message: scrub(err) }));
`;

type WorkerMessage =
  { type: 'up'; url: string | null } | { type: 'error' | 'lost'; message: string } | { type: 'closed' };

export interface NgrokDriverOptions {
  /** ngrok's auth token (`config.ngrokAuthtoken`); without one the SDK's connect is refused. */
  authtoken?: string;
  /**
   * Address of ngrok's ingress instead of the SDK's default (tests point it at a loopback server
   * that never answers). Not a setting: the spec allows no tunnel variables but `TUNNEL_ALLOW`.
   */
  serverAddr?: string;
  /** How long a close waits for the SDK to disconnect before the worker is terminated. */
  closeTimeoutMs?: number;
  /** Told when an established session drops (the SDK reconnects by itself). */
  onLost?: (message: string) => void;
}

export class NgrokDriver implements TunnelDriver {
  private worker: Worker | undefined;

  constructor(private readonly opts: NgrokDriverOptions = {}) {}

  open(req: TunnelRequest): Promise<string> {
    if (this.worker) return Promise.reject(new Error('a tunnel is already open'));
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        sdk: createRequire(import.meta.url).resolve('@ngrok/ngrok'),
        forwardTo: req.forwardTo,
        domain: req.domain,
        serverAddr: this.opts.serverAddr,
        authtoken: this.opts.authtoken,
      },
    });
    worker.unref();
    this.worker = worker;
    return new Promise<string>((resolve, reject) => {
      worker.on('message', (m: WorkerMessage) => {
        if (m.type === 'up') {
          if (m.url) resolve(m.url);
          else reject(new Error('the tunnel opened without a public URL'));
        } else if (m.type === 'error') reject(new Error(m.message));
        else if (m.type === 'lost') this.opts.onLost?.(m.message);
      });
      worker.on('error', (err) => reject(err));
      worker.on('exit', () => {
        if (this.worker === worker) this.worker = undefined;
        reject(new Error('the tunnel worker stopped'));
      });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    // Ask the SDK to disconnect cleanly; whatever happens, the worker ends within the bound.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.opts.closeTimeoutMs ?? 2_000);
      worker.on('message', (m: WorkerMessage) => {
        if (m.type === 'closed') {
          clearTimeout(timer);
          resolve();
        }
      });
      worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      worker.postMessage({ type: 'close' });
    });
    await worker.terminate().catch(() => undefined);
  }
}
