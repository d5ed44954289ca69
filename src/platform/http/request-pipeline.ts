/**
 * The hooks every request passes (callback-style: no promise per hook on the hot path): the
 * client address, the request id header, the request's in-flight record (for a graceful
 * shutdown), the `debug` access line, and two slots modules fill: observers told when a request
 * starts and ends (the traffic log, the error log's request context, the metrics) and a gate
 * that may turn a client away before any route logic (the IP-ban check). The gate runs also for
 * unknown paths; the end is reported also for a request whose client went away (status 499, as
 * nginx logs it).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { ResolvedConfig } from '../../config.js';
import { resolveClientIp } from '../client-ip.js';
import type { ErrorAnswer } from './hook-doc.js';
import { InFlight } from './in-flight.js';
import type { App } from './types.js';

/**
 * The matched route's configuration (its `url` pattern, undefined when no route matched); Fastify
 * may have none for a request that matched nothing.
 */
export type RouteConfig = FastifyRequest['routeOptions']['config'] | undefined;

/**
 * Told about every request, once, when it ends (with the status logged and the route's
 * configuration, read once for every observer: Fastify builds `req.routeOptions` anew on each
 * read).
 */
export interface RequestObserver {
  ended(req: FastifyRequest, reply: FastifyReply, status: number, route: RouteConfig): void;
}

/**
 * Decides whether a client may be served: synchronous when it can (a cache hit), a promise
 * otherwise; `deny` answers a refused one.
 */
export interface RequestGate {
  admits(ip: string): boolean | Promise<boolean>;
  deny(reply: FastifyReply): void;
  /** What `deny` answers, as the API reference documents it on every route. */
  refusal?: ErrorAnswer;
}

const NO_OBSERVER: RequestObserver = { ended: () => undefined };

/** The pipeline's state: its in-flight count and the slots modules fill at registration. */
export class RequestPipeline {
  readonly inFlight = new InFlight();
  /** Every observer added, composed into one (a single call per hook while there is one). */
  observer: RequestObserver = NO_OBSERVER;
  gate: RequestGate | undefined;

  /**
   * Adds an observer after those already added (the traffic and error logs, then the metrics):
   * each is told, in that order. Composed once here, so the request hooks still make one call.
   */
  observe(next: RequestObserver): void {
    const prev = this.observer;
    if (prev === NO_OBSERVER) {
      this.observer = next;
      return;
    }
    this.observer = {
      ended: (req, reply, status, route) => {
        prev.ended(req, reply, status, route);
        next.ended(req, reply, status, route);
      },
    };
  }
}

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
/** The log levels at which the `debug` access line is written. */
const ACCESS_LINE_LEVELS: ReadonlySet<string> = new Set(['debug', 'trace']);
/** Traffic-log status of a request whose client closed the connection before its answer (nginx's). */
const CLIENT_CLOSED_REQUEST = 499;
const SWITCHING_PROTOCOLS = 101;

/** Registers the hooks on `app`; modules fill the returned pipeline's slots. */
export function registerRequestPipeline(
  app: App,
  config: Pick<ResolvedConfig, 'trustProxyHeaders'>,
): RequestPipeline {
  app.decorateRequest('clientIp', '');
  app.decorateRequest('inFlight', 0);
  const pipeline = new RequestPipeline();
  const { inFlight } = pipeline;
  /**
   * A request is in flight until its handler has answered (`onSend`, which also runs when the
   * client is gone: the handler may go on working after an abort) and its response is done.
   */
  const settle = (req: FastifyRequest, part: number) => {
    if ((req.inFlight & part) === 0) return;
    req.inFlight &= ~part;
    if ((req.inFlight & PENDING) === 0) inFlight.end();
  };
  /** The end of a request, reported once (and the end of its in-flight record). */
  const reportEnd = (req: FastifyRequest, reply: FastifyReply, status: number) => {
    if (req.inFlight & RECORDED) return;
    req.inFlight |= RECORDED;
    settle(req, RESPONSE_PENDING);
    pipeline.observer.ended(req, reply, status, req.routeOptions.config);
  };
  app.addHook('onRequest', (req, reply, done) => {
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
    // A WebSocket whose upgrade was accepted ends here too, when its socket closes: it answered
    // 101 Switching Protocols (written by the socket library, not through the reply), and its
    // closing is the socket's normal end, not a client that left (an upgrade refused with an
    // HTTP answer has that answer's status).
    reply.raw.once('close', () => {
      const answered = reply.raw.writableEnded && (req.inFlight & CLIENT_GONE) === 0;
      const upgraded = req.headers.upgrade !== undefined && !reply.raw.headersSent;
      reportEnd(
        req,
        reply,
        answered ? reply.statusCode : upgraded ? SWITCHING_PROTOCOLS : CLIENT_CLOSED_REQUEST,
      );
    });
    req.clientIp = resolveClientIp(req.raw.socket.remoteAddress, req.headers, config.trustProxyHeaders);
    reply.header('x-request-id', req.id);
    const gate = pipeline.gate;
    if (gate === undefined) return done();
    const admitted = gate.admits(req.clientIp);
    if (admitted === true) return done();
    if (admitted === false) return gate.deny(reply);
    admitted.then(
      (ok) => (ok ? done() : gate.deny(reply)),
      (err: unknown) => (req.routeOptions.config?.probe ? done() : done(err as Error)),
    );
  });
  app.addHook('onSend', (req, _reply, payload, done) => {
    if (req.raw.socket?.destroyed) req.inFlight |= CLIENT_GONE;
    settle(req, HANDLER_PENDING);
    done(null, payload);
  });
  // One access line per request (its logger adds the URL, masked: webhook tokens, query strings). At
  // `debug`: at `info` the line cost ~15% of API throughput, and the per-request record operators
  // read is the traffic log (batched into the database); failures are logged at `error` anyway.
  app.addHook('onResponse', (req, reply, done) => {
    // Built only when written: masking the URL is not free, and at `info` nothing is written.
    if (ACCESS_LINE_LEVELS.has(req.log.level))
      // The request's logger carries its method and masked URL (lazy-request-logger.ts).
      req.log.debug(
        {
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 100) / 100,
          ip: req.clientIp,
        },
        'request',
      );
    reportEnd(req, reply, reply.statusCode);
    done();
  });
  return pipeline;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The request pipeline (platform/http/request-pipeline.ts): its in-flight count and slots. */
    requests: RequestPipeline;
  }
}

/** The pipeline as the first plugin of the app: every route registered after it passes its hooks. */
export const requestPipelinePlugin = fp<{ config: Pick<ResolvedConfig, 'trustProxyHeaders'> }>(
  async (app, { config }) => {
    app.decorate('requests', registerRequestPipeline(app as unknown as App, config));
  },
  { name: 'request-pipeline', fastify: '5.x' },
);
