import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { AppError } from '../../platform/errors.js';
import type { ApiKeysService, ApiPrincipal } from './api-keys.service.js';

/** Called with the client IP and the key's digest (never the key) when a presented key is refused. */
export type InvalidKeyListener = (ip: string, keyDigest: string) => void;

export type ApiKeyGuard = (req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

/**
 * `/api/v1` authentication: the `apikey` field of the JSON body (already schema-checked to be a
 * string). Unknown or revoked keys get 403 "Invalid <service> apikey". Callback-style so a cached
 * key (the common case) costs no promise.
 */
export function createApiKeyGuard(
  apiKeys: ApiKeysService,
  serviceName: string,
  onInvalid: InvalidKeyListener[] = [],
): ApiKeyGuard {
  const message = `Invalid ${serviceName} apikey`;
  const settle = (
    req: FastifyRequest,
    apikey: unknown,
    principal: ApiPrincipal | null | undefined,
    done: HookHandlerDoneFunction,
  ) => {
    if (principal) {
      req.apiPrincipal = principal;
      return done();
    }
    if (typeof apikey === 'string') {
      const digest = apiKeys.digest(apikey.slice(0, 256));
      for (const listener of onInvalid) listener(req.clientIp, digest);
    }
    return done(new AppError(403, 'invalid_api_key', message));
  };
  return function apiKeyGuard(req, _reply, done) {
    const apikey = (req.body as { apikey?: unknown } | undefined)?.apikey;
    if (typeof apikey !== 'string') return settle(req, apikey, null, done);
    const known = apiKeys.cached(apikey);
    if (known !== undefined) return settle(req, apikey, known, done);
    apiKeys.verify(apikey).then(
      (principal) => settle(req, apikey, principal, done),
      (err: unknown) => done(err as Error),
    );
  };
}
