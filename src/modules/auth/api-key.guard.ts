import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { invalidApiKey } from '../../platform/errors.js';
import { documentHook, type HookDoc } from '../../platform/http/hook-doc.js';
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
    return done(invalidApiKey(message));
  };
  return documentHook<ApiKeyGuard>(function apiKeyGuard(req, _reply, done) {
    const apikey = (req.body as { apikey?: unknown } | undefined)?.apikey;
    if (typeof apikey !== 'string') return settle(req, apikey, null, done);
    const known = apiKeys.cached(apikey);
    if (known !== undefined) return settle(req, apikey, known, done);
    apiKeys.verify(apikey).then(
      (principal) => settle(req, apikey, principal, done),
      (err: unknown) => done(err as Error),
    );
  }, API_KEY_DOC);
}

/** What the guard reads and may answer, for the API reference (platform/http/hook-doc.ts). */
const API_KEY_DOC: HookDoc = {
  credentials: [
    {
      in: 'body',
      name: 'apikey',
      description:
        "The account's API key, in the JSON body (OpenAlgo's convention, not a header). Created with `POST /apikey` and shown once; only its digest is stored.",
    },
  ],
  answers: [
    { status: 403, code: 'invalid_api_key', when: 'the `apikey` field is missing, unknown or revoked' },
  ],
};
