/**
 * Running an agent's tool call (docs/rules/mcp.md#mcp-tools): as the `/api/v1` call it stands for,
 * made in-process with the user's API key from the caller's address, so every rule of the API
 * applies unchanged; then one audit row (docs/rules/mcp.md#mcp-audit) with a digest of the
 * arguments, never the arguments or the key.
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { DB } from '../../db/schema.js';
import type { Clock } from '../../platform/clock.js';
import { canonical } from '../webhooks/payload.js';
import type { App } from '../../platform/http/types.js';
import { toolByName } from './mcp-tools.js';

export interface McpCallResult {
  /** The API's HTTP status (404 for an unknown tool). */
  status: number;
  /** The API's answer. */
  body: unknown;
}

export interface McpCallContext {
  transport: 'stdio' | 'http';
  ip: string;
  clientId?: string;
  /** The caller's user, once known (the key resolved); the audit names it. */
  userId?: number;
}

export class McpCalls {
  constructor(
    private readonly deps: {
      app: Pick<App, 'inject'>;
      db: Kysely<DB>;
      /** A one-call key standing for a user (ApiKeysService.delegate). */
      delegate(userId: number): Promise<{ key: string; release(): void } | undefined>;
      clock: Clock;
      logger: Logger;
    },
  ) {}

  /** A remote agent's call, as the user who consented (a key made for this call only). */
  async callAs(userId: number, name: string, args: unknown, ctx: McpCallContext): Promise<McpCallResult> {
    const d = await this.deps.delegate(userId);
    if (!d)
      return { status: 403, body: { status: 'error', message: 'The consenting user no longer exists' } };
    try {
      return await this.call(d.key, name, args, { ...ctx, userId });
    } finally {
      d.release();
    }
  }

  async call(apikey: string, name: string, args: unknown, ctx: McpCallContext): Promise<McpCallResult> {
    const started = performance.now();
    const tool = toolByName(name);
    const argsObj =
      typeof args === 'object' && args !== null && !Array.isArray(args)
        ? (args as Record<string, unknown>)
        : {};
    let result: McpCallResult;
    if (!tool)
      result = { status: 404, body: { status: 'error', message: `No tool named ${name.slice(0, 64)}` } };
    else {
      const { apikey: _ignored, ...rest } = argsObj;
      const res = await this.deps.app.inject({
        method: 'POST',
        url: `/api/v1/${tool.path}`,
        remoteAddress: ctx.ip,
        payload: { ...rest, ...tool.fixed, apikey },
      });
      let body: unknown;
      try {
        body = res.json();
      } catch {
        body = { status: 'error', message: res.body.slice(0, 500) };
      }
      result = { status: res.statusCode, body };
    }
    await this.deps.db
      .insertInto('mcp_audit')
      .values({
        ts: this.deps.clock.now(),
        transport: ctx.transport,
        client_id: ctx.clientId ?? null,
        user_id: ctx.userId ?? null,
        tool: name.slice(0, 64),
        scope: tool?.scope ?? null,
        args_digest: createHash('sha256').update(canonical(argsObj)).digest('hex'),
        http_status: result.status,
        outcome:
          result.status < 400 ? 'ok' : result.status === 403 || result.status === 429 ? 'refused' : 'error',
        duration_ms: performance.now() - started,
        ip: ctx.ip.slice(0, 64),
      })
      .execute()
      .catch((err: unknown) => this.deps.logger.error({ err, tool: name }, 'mcp call not audited'));
    return result;
  }
}
