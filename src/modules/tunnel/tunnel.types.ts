/**
 * The public tunnel's contracts (spec "Public tunnel", "Limits" tunnel paragraph). A
 * {@link TunnelDriver} only opens and closes one tunnel; the rules (the flag, the custom domain,
 * the start-up bound, logging) live in {@link TunnelManager}'s implementation, tunnel.service.ts,
 * so the ngrok driver and the test fake are held to the same rules.
 */

/** What to open: where to forward and which public name to ask for. */
export interface TunnelRequest {
  /** Local URL the tunnel forwards to: the service's own listening address, e.g. `http://127.0.0.1:5000`. */
  forwardTo: string;
  /** Custom domain to request (`HOST_SERVER`'s host when it is not local); undefined = a random URL. */
  domain: string | undefined;
}

/** One tunnel provider (ngrok in production, a fake in tests). */
export interface TunnelDriver {
  /** Opens the tunnel and resolves with its public URL; rejects when it cannot. */
  open(req: TunnelRequest): Promise<string>;
  /**
   * Closes whatever {@link open} opened or is still opening (an open in progress then rejects or
   * is discarded). Idempotent and never rejects: shutdown must not fail on the tunnel.
   */
  close(): Promise<void>;
}

/** Where the HTTP server listens (Fastify's `server.address()`). */
export interface ListenAddress {
  address: string;
  port: number;
}

/** The tunnel as the rest of the service sees it. */
export interface TunnelManager {
  /**
   * Start-up: stops any tunnel this service holds, then evaluates `TUNNEL_ALLOW`; with the flag
   * on opens a tunnel to `listen` within the start-up bound. Never rejects: a failure is logged
   * and the service runs on with no public URL. Resolves with the public URL, or null.
   */
  start(listen: ListenAddress): Promise<string | null>;
  /** Disconnects the tunnel (shutdown: process exit, SIGINT, SIGTERM). Idempotent, never rejects. */
  stop(): Promise<void>;
  /** {@link stop} waited for at most `ms`; resolves false when it gave up waiting. Never rejects. */
  stopWithin(ms?: number): Promise<boolean>;
  /** Calls `listener` with the public URL each time a start brings the tunnel up. */
  onUp(listener: (url: string) => void): void;
  /** The public URL while the tunnel is up, else null (held in memory only). */
  publicUrl(): string | null;
}
