/**
 * Fastify's `childLoggerFactory`: each request's `req.log` is a pino child bound to its request id,
 * method and URL (masked: webhook tokens, query strings), built only when the request logs
 * something. Building a pino child (its bindings serialised, its level methods set) for every
 * request cost ~1.4 µs of the ~48 µs a `ping` takes on the event loop, and almost no request logs:
 * the access line is written at `debug`, off by default, and only after reading the level, which
 * the parent answers.
 *
 * The method and URL on every request-bound line are what the error log stores a record's request
 * by (error-record.ts). It used to look them up by request id in a map it kept from each request's
 * start to its end; that long-lived map, with a set and a delete per request, grew its hash table
 * anew in the old generation every few dozen requests and kept each request's strings alive
 * through young-generation GCs (bench/README.md, "The hot paths against their targets").
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString, LogFn } from 'pino';
import { maskUrl } from '../logger.js';

/** A log call's arguments (pino's `LogFn` overloads, taken as one). */
type LogArgs = Parameters<LogFn>;

class LazyRequestLogger {
  private built: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly childBindings: Bindings,
    private readonly options: ChildLoggerOptions,
    private readonly raw: Pick<IncomingMessage, 'method' | 'url'> | undefined,
  ) {}

  private get real(): FastifyBaseLogger {
    return (this.built ??= this.parent.child(
      this.raw
        ? { ...this.childBindings, method: this.raw.method, url: maskUrl(this.raw.url ?? '') }
        : this.childBindings,
      this.options,
    ));
  }

  /** The level in force: the child's once built, else the parent's (a child starts at its parent's). */
  get level(): LevelWithSilentOrString {
    return this.built?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: LevelWithSilentOrString) {
    this.real.level = level;
  }

  // Methods on the prototype, not per-instance closures: a request that never logs allocates one
  // small object and nothing else.
  fatal(...args: LogArgs): void {
    this.real.fatal(...args);
  }
  error(...args: LogArgs): void {
    this.real.error(...args);
  }
  warn(...args: LogArgs): void {
    this.real.warn(...args);
  }
  info(...args: LogArgs): void {
    this.real.info(...args);
  }
  debug(...args: LogArgs): void {
    this.real.debug(...args);
  }
  trace(...args: LogArgs): void {
    this.real.trace(...args);
  }
  silent(...args: LogArgs): void {
    this.real.silent(...args);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }
}

/**
 * The factory (`Fastify({ childLoggerFactory })`): Fastify's bindings (the request id) and options,
 * and the raw request's method and URL.
 */
export function lazyChildLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
  raw?: Pick<IncomingMessage, 'method' | 'url'>,
): FastifyBaseLogger {
  return new LazyRequestLogger(logger, bindings, options, raw) as unknown as FastifyBaseLogger;
}
