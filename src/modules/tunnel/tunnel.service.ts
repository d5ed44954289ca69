/**
 * The tunnel manager (spec "Public tunnel" state table): off → tunnel up at start-up when
 * `TUNNEL_ALLOW` is TRUE; tunnel up → off on shutdown; a failing start stays off, is logged, and
 * the service keeps serving with no public URL. The provider is a {@link TunnelDriver}.
 */
import { withDeadline } from '../../platform/deadline.js';
import type { Logger } from 'pino';
import { safeUrl } from '../../platform/safe-url.js';
import { customDomain, forwardUrl, scrubCredential } from './tunnel-target.js';
import type { ListenAddress, TunnelDriver, TunnelManager } from './tunnel.types.js';

/** How long start-up waits for the tunnel before it gives up and serves without it. */
export const TUNNEL_START_TIMEOUT_MS = 10_000;

/**
 * How long shutdown and the process's other exits wait for the tunnel to disconnect before they
 * go on without it (the ngrok driver ends its worker within 2 s of a close on its own).
 */
export const TUNNEL_STOP_TIMEOUT_MS = 3_000;

export interface TunnelOptions {
  /** `TUNNEL_ALLOW` as parsed by config.ts (only a case-insensitive `true` is true). */
  allow: boolean;
  /** `HOST_SERVER`: a non-local host is requested as the custom domain. */
  hostServer: string;
  driver: TunnelDriver;
  logger: Logger;
  /** Start-up warnings to log when the tunnel is on (debug logging, webhook secrets…). */
  warnings?: () => string[];
  /** Bound on one start ({@link TUNNEL_START_TIMEOUT_MS}); tests shorten it. */
  startTimeoutMs?: number;
}

class TunnelTimeout extends Error {
  constructor(ms: number) {
    super(`no answer from the tunnel provider within ${ms / 1000} s`);
  }
}

export class Tunnel implements TunnelManager {
  private url: string | null = null;
  /** Bumped by every start and stop: a start that finishes after a newer call is discarded. */
  private generation = 0;
  private held = false;
  private readonly log: Logger;
  private readonly upListeners: ((url: string) => void)[] = [];

  constructor(private readonly opts: TunnelOptions) {
    this.log = opts.logger.child({ module: 'tunnel' });
  }

  publicUrl(): string | null {
    return this.url;
  }

  /** Calls `listener` with the public URL each time a start brings the tunnel up (the banner). */
  onUp(listener: (url: string) => void): void {
    this.upListeners.push(listener);
  }

  async start(listen: ListenAddress): Promise<string | null> {
    const gen = ++this.generation;
    // "Any existing tunnel process stopped first", whatever the flag says now.
    await this.disconnect();
    if (gen !== this.generation) return null; // a stop (shutdown) came in meanwhile
    if (!this.opts.allow) {
      this.log.debug('public tunnel off (TUNNEL_ALLOW is not TRUE)');
      return null;
    }
    for (const w of this.opts.warnings?.() ?? []) this.log.warn(w);
    const req = { forwardTo: forwardUrl(listen), domain: customDomain(this.opts.hostServer) };
    this.log.info(
      { forward_to: req.forwardTo, domain: req.domain ?? null },
      req.domain ? `opening public tunnel on ${req.domain}` : 'opening public tunnel (random URL)',
    );
    this.held = true;
    const ms = this.opts.startTimeoutMs ?? TUNNEL_START_TIMEOUT_MS;
    try {
      const answer = await withTimeout(this.opts.driver.open(req), ms);
      if (gen !== this.generation) return null; // stopped while opening: stop() closed it
      // Only scheme, host and path of the provider's answer are kept, logged, shown and printed.
      const url = safeUrl(answer.replace(/\/+$/, ''));
      if (!url) throw new Error('the tunnel provider answered without a usable public URL');
      this.url = url;
      this.log.info({ public_url: url }, `public tunnel up: ${url}`);
      for (const listener of this.upListeners) {
        try {
          listener(url);
        } catch {
          // A listener that fails (a closed stderr, say) does not take the tunnel down.
        }
      }
      return url;
    } catch (err) {
      if (gen !== this.generation) return null;
      this.held = false;
      await this.opts.driver.close();
      const reason = scrubCredential(err instanceof Error ? err.message : String(err));
      this.log.error(
        { reason, domain: req.domain ?? null },
        'public tunnel failed to start; serving without a public URL',
      );
      return null;
    }
  }

  async stop(): Promise<void> {
    this.generation++;
    await this.disconnect();
  }

  /**
   * {@link stop}, waited for at most `ms` ({@link TUNNEL_STOP_TIMEOUT_MS}): what every exit of
   * the process calls, so none of them hangs on the provider. False when it stopped waiting.
   */
  async stopWithin(ms = TUNNEL_STOP_TIMEOUT_MS): Promise<boolean> {
    try {
      await withTimeout(this.stop(), ms);
      return true;
    } catch {
      this.log.warn(`public tunnel did not disconnect within ${ms / 1000} s; going on without it`);
      return false;
    }
  }

  private async disconnect(): Promise<void> {
    const wasHeld = this.held;
    this.held = false;
    this.url = null;
    await this.opts.driver.close().catch(() => undefined);
    if (wasHeld) this.log.info('public tunnel disconnected');
  }
}

/** `p`, or a {@link TunnelTimeout} after `ms`; a late rejection of `p` is swallowed. */
function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return withDeadline(p, ms, () => new TunnelTimeout(ms));
}
