/**
 * A tunnel driver for tests (ARCHITECTURE.md: "tunnel … behind an interface; tests use a fake"):
 * records what was requested and closed, and opens, fails or hangs as told.
 */
import type { TunnelDriver, TunnelRequest } from './tunnel.types.js';

export type FakeTunnelBehaviour = 'open' | 'fail' | 'hang';

export class FakeTunnelDriver implements TunnelDriver {
  /** Every open request, in order. */
  readonly requests: TunnelRequest[] = [];
  /** Calls to close() (including the no-op ones start-up makes). */
  closeCalls = 0;
  /** True between a successful open and the next close. */
  isOpen = false;
  private pending: { reject: (err: Error) => void } | undefined;

  constructor(
    public behaviour: FakeTunnelBehaviour = 'open',
    /** Message of a failing open: tests put a credential in it to prove it is scrubbed. */
    public failMessage = 'failed to connect session: failed to establish tcp connection',
  ) {}

  /** The URL a successful open answers: the custom domain, or a random-looking ngrok name. */
  static urlFor(req: TunnelRequest): string {
    return req.domain ? `https://${req.domain}` : 'https://a1b2-203-0-113-7.ngrok-free.app';
  }

  open(req: TunnelRequest): Promise<string> {
    this.requests.push(req);
    if (this.behaviour === 'fail') return Promise.reject(new Error(this.failMessage));
    if (this.behaviour === 'hang')
      return new Promise((_, reject) => {
        this.pending = { reject };
      });
    this.isOpen = true;
    return Promise.resolve(FakeTunnelDriver.urlFor(req));
  }

  close(): Promise<void> {
    this.closeCalls++;
    this.isOpen = false;
    this.pending?.reject(new Error('closed while opening'));
    this.pending = undefined;
    return Promise.resolve();
  }
}
