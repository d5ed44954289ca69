/**
 * The administrator's side of remote agents' OAuth (docs/rules/mcp.md#mcp-settings): the clients
 * with the users who consented, approval and revocation (a revoked client's tokens stop at once),
 * and the kill switch's revocation of every token. Each end of access is one conditional UPDATE.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Clock } from '../../platform/clock.js';

export class OAuthAdmin {
  constructor(private readonly deps: { db: Kysely<DB>; clock: Clock }) {}

  async clients() {
    const rows = await this.deps.db
      .selectFrom('oauth_clients')
      .selectAll()
      .orderBy('created_at', 'desc')
      .execute();
    const users = await this.deps.db
      .selectFrom('oauth_tokens')
      .innerJoin('users', 'users.id', 'oauth_tokens.user_id')
      .select(['oauth_tokens.client_id', 'users.username'])
      .distinct()
      .execute();
    const data = rows.map((c) => ({
      client_id: c.client_id,
      name: c.name,
      redirect_uris: JSON.parse(c.redirect_uris) as string[],
      status: c.status as 'pending' | 'approved' | 'revoked',
      created_at: Number(c.created_at),
      last_used_at: c.last_used_at === null ? null : Number(c.last_used_at),
      users: users.filter((u) => u.client_id === c.client_id).map((u) => u.username),
    }));
    const count = (s: string) => data.filter((c) => c.status === s).length;
    return {
      data,
      counts: {
        total: data.length,
        pending: count('pending'),
        approved: count('approved'),
        revoked: count('revoked'),
      },
    };
  }

  async setClientStatus(clientId: string, status: 'approved' | 'revoked'): Promise<boolean> {
    const r = await this.deps.db
      .updateTable('oauth_clients')
      .set({ status })
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    if (status === 'revoked')
      await this.deps.db
        .updateTable('oauth_tokens')
        .set({ revoked_at: this.deps.clock.now() })
        .where('client_id', '=', clientId)
        .where('revoked_at', 'is', null)
        .execute();
    return Number(r.numUpdatedRows) > 0;
  }

  /** The kill switch's first act: every token stops working at once. */
  async revokeAll(): Promise<number> {
    const r = await this.deps.db
      .updateTable('oauth_tokens')
      .set({ revoked_at: this.deps.clock.now() })
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }
}
