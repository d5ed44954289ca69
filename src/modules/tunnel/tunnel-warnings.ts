/**
 * Start-up warnings when the tunnel is on (spec "Authentication", public tunnel: keep debug mode
 * off when the port is internet-reachable; use webhook secrets where the integration supports
 * them; tunnel credentials are never logged).
 */
import type { LogLevel } from '../../config.js';

/** A webhook route the tunnel exposes (collected from Fastify's `onRoute`). */
export interface WebhookRoute {
  method: string;
  url: string;
}

export interface TunnelWarningInput {
  logLevel: LogLevel;
  trustProxyHeaders: boolean;
  webhookRoutes: WebhookRoute[];
}

/** A route path segment that carries a secret: a path parameter (`:token`, `:webhook_id`). */
const SECRET_SEGMENT = /\/:[^/]+/;

export function tunnelWarnings(input: TunnelWarningInput): string[] {
  const out: string[] = [];
  if (input.logLevel === 'debug' || input.logLevel === 'trace')
    out.push(
      `LOG_LEVEL=${input.logLevel} while the public tunnel is on: debug logging is for a port the ` +
        'internet cannot reach; set LOG_LEVEL=info',
    );
  // Every webhook sender authenticates by a secret: the strategy webhook by its URL token (always
  // required). A webhook route whose URL holds no secret would be open to anyone on the internet.
  for (const r of input.webhookRoutes)
    if (!SECRET_SEGMENT.test(r.url))
      out.push(
        `webhook route ${r.method} ${r.url} is reachable through the public tunnel and takes no ` +
          'secret in its URL: configure the integration’s webhook secret before exposing it',
      );
  if (input.webhookRoutes.length > 0 && !input.trustProxyHeaders)
    out.push(
      'the public tunnel forwards from loopback: with TRUST_PROXY_HEADERS=false every webhook ' +
        'sender appears as a loopback address, so strategy IP allowlists see only that and ' +
        'per-address bans and rate limits cannot tell senders apart. TRUST_PROXY_HEADERS=true reads ' +
        'the forwarded headers instead, but a sender can forge a header the proxy does not overwrite: ' +
        'through the tunnel, rely on the webhook token rather than on IP allowlists',
    );
  return out;
}
