/**
 * The hooks every request passes (callback-style: no promise per hook on the hot path): the IP-ban
 * check before any route logic (also for unknown paths: synchronous on a cache hit, one indexed
 * lookup otherwise), the traffic-log row (also of a request whose client went away: status 499,
 * as nginx logs it), the request's in-flight record for warn+ log records and for a graceful
 * shutdown, and the `debug` access line.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from './app.js';
import type { ResolvedConfig } from './config.js';
import { resolveClientIp } from './platform/client-ip.js';
import { InFlight } from './platform/http/in-flight.js';
import type { App } from './platform/http/types.js';
import { maskUrl } from './platform/logger.js';
import { BAN_MESSAGE } from './modules/security/ban.service.js';

/**
 * `FastifyRequest.inFlight` bits: what a counted request still has to do before shutdown may
 * proceed (handler, response), and whether its traffic row is written (any request).
 */
const HANDLER_PENDING = 1;
const RESPONSE_PENDING = 2;
const PENDING = HANDLER_PENDING | RESPONSE_PENDING;
const RECORDED = 4;
/** The connection was gone when the handler's answer was about to be written. */
const CLIENT_GONE = 8;
/** Traffic-log status of a request whose client closed the connection before its answer (nginx's). */
const CLIENT_CLOSED_REQUEST = 499;

/** Registers the hooks; returns the in-flight count a graceful shutdown waits on. */
export function registerRequestHooks(
  app: App,
  config: Pick<ResolvedConfig, 'trustProxyHeaders' | 'disableBanCheck'>,
  services: Pick<Services, 'observability' | 'traffic' | 'bans'>,
): InFlight {
  app.decorateRequest('clientIp', '');
  app.decorateRequest('inFlight', 0);
  // Hooks on every request are callback-style: no promise per hook on the hot path.
  // The ban check runs here, before any route logic (also for unknown paths): synchronous on
  // a cache hit, one indexed lookup otherwise.
  const denyBanned = (reply: FastifyReply) =>
    reply.code(403).type('text/plain; charset=utf-8').send(BAN_MESSAGE);
  const errorLog = services.observability.errors;
  const inFlight = new InFlight();
  /**
   * A request is in flight until its handler has answered (`onSend`, which also runs when the
   * client is gone: the handler may go on working after an abort) and its response is done.
   */
  const settle = (req: FastifyRequest, part: number) => {
    if ((req.inFlight & part) === 0) return;
    req.inFlight &= ~part;
    if ((req.inFlight & PENDING) === 0) inFlight.end();
  };
  /** The traffic-log row of a request, once (and the end of its in-flight record). */
  const recordTraffic = (req: FastifyRequest, reply: FastifyReply, status: number) => {
    if (req.inFlight & RECORDED) return;
    req.inFlight |= RECORDED;
    settle(req, RESPONSE_PENDING);
    services.traffic.record({
      ip: req.clientIp,
      method: req.method,
      url: req.url,
      routeUrl: req.routeOptions.url,
      status,
      durationMs: reply.elapsedTime,
      host: req.headers.host,
      userId: req.session?.userId,
    });
    errorLog.requestEnded(req.id);
  };
  app.addHook('onRequest', (req, reply, done) => {
    // Method and URL kept while the request is in flight, for its warn+ log records (O(1)).
    errorLog.requestStarted(req.id, req.method, req.url);
    // A WebSocket upgrade lives as long as its socket: it is not a request shutdown waits for.
    if (req.headers.upgrade === undefined) {
      req.inFlight = PENDING;
      inFlight.begin();
    }
    // A response whose connection closes before it is flushed gets no 'finish', so no onResponse
    // (a flushed one was recorded there before its 'close'), also when the handler answered just
    // after the client left. Its request is still logged: with the status answered when the
    // client left while the answer was being written, else as nginx does, 499 (client closed
    // request).
    reply.raw.once('close', () => {
      const answered = reply.raw.writableEnded && (req.inFlight & CLIENT_GONE) === 0;
      recordTraffic(req, reply, answered ? reply.statusCode : CLIENT_CLOSED_REQUEST);
    });
    req.clientIp = resolveClientIp(req.raw.socket.remoteAddress, req.headers, config.trustProxyHeaders);
    reply.header('x-request-id', req.id);
    if (config.disableBanCheck) return done();
    const banned = services.bans.isBanned(req.clientIp);
    if (banned === false) return done();
    if (banned === true) return denyBanned(reply);
    banned.then((b) => (b ? denyBanned(reply) : done()), done);
  });
  app.addHook('onSend', (req, _reply, payload, done) => {
    if (req.raw.socket?.destroyed) req.inFlight |= CLIENT_GONE;
    settle(req, HANDLER_PENDING);
    done(null, payload);
  });
  // One access line per request, with the URL masked (webhook tokens, query strings). At
  // `debug`: at `info` the line cost ~15% of API throughput, and the per-request record operators
  // read is the traffic log (batched into the database); failures are logged at `error` anyway.
  app.addHook('onResponse', (req, reply, done) => {
    req.log.debug(
      {
        method: req.method,
        url: maskUrl(req.url),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 100) / 100,
        ip: req.clientIp,
      },
      'request',
    );
    recordTraffic(req, reply, reply.statusCode);
    done();
  });
  return inFlight;
}
