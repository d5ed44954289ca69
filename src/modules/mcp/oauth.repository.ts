/**
 * The OAuth server's rows (docs/rules/mcp.md#mcp-oauth): registered clients, authorization codes
 * and tokens, codes and tokens by their SHA-256 digest only. Every write that uses a code or
 * token once, or ends access, is one conditional UPDATE, so two instances agree on who won.
 */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { DB } from '../../db/schema.js';

type OauthClientsTable = DB['oauth_clients'];
type OauthCodesTable = DB['oauth_codes'];
type OauthTokensTable = DB['oauth_tokens'];

export type OAuthClientRow = Selectable<OauthClientsTable>;
export type OAuthCodeRow = Selectable<OauthCodesTable>;
export type OAuthTokenRow = Selectable<OauthTokensTable>;

/** An access token as the `/mcp` endpoint checks it, with its client's status. */
export type AccessTokenRow = Pick<
  OAuthTokenRow,
  'user_id' | 'client_id' | 'scope' | 'expires_at' | 'revoked_at'
> &
  Pick<OAuthClientRow, 'status'>;

/** The authorization server's access to `oauth_clients`, `oauth_codes` and `oauth_tokens`. */
export class OAuthRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async insertClient(row: Insertable<OauthClientsTable>): Promise<void> {
    await this.db.insertInto('oauth_clients').values(row).execute();
  }

  findClient(clientId: string): Promise<OAuthClientRow | undefined> {
    return this.db
      .selectFrom('oauth_clients')
      .selectAll()
      .where('client_id', '=', clientId)
      .executeTakeFirst();
  }

  /** Records the client's latest grant of tokens. */
  async touchClient(clientId: string, now: number): Promise<void> {
    await this.db
      .updateTable('oauth_clients')
      .set({ last_used_at: now })
      .where('client_id', '=', clientId)
      .execute();
  }

  async insertCode(row: Insertable<OauthCodesTable>): Promise<void> {
    await this.db.insertInto('oauth_codes').values(row).execute();
  }

  findCode(digest: string): Promise<OAuthCodeRow | undefined> {
    return this.db.selectFrom('oauth_codes').selectAll().where('code_digest', '=', digest).executeTakeFirst();
  }

  /** Marks the code used; false when it was used already (another request claimed it first). */
  async claimCode(digest: string, now: number): Promise<boolean> {
    const claimed = await this.db
      .updateTable('oauth_codes')
      .set({ used_at: now })
      .where('code_digest', '=', digest)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(claimed.numUpdatedRows) > 0;
  }

  async insertTokens(rows: Insertable<OauthTokensTable>[]): Promise<void> {
    await this.db.insertInto('oauth_tokens').values(rows).execute();
  }

  findRefreshToken(digest: string): Promise<OAuthTokenRow | undefined> {
    return this.db
      .selectFrom('oauth_tokens')
      .selectAll()
      .where('token_digest', '=', digest)
      .where('kind', '=', 'refresh')
      .executeTakeFirst();
  }

  /**
   * Marks the refresh token used; false when it was used or revoked already (another request
   * claimed it first, or its grant was revoked meanwhile).
   */
  async claimRefreshToken(digest: string, now: number): Promise<boolean> {
    const claimed = await this.db
      .updateTable('oauth_tokens')
      .set({ used_at: now })
      .where('token_digest', '=', digest)
      .where('used_at', 'is', null)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(claimed.numUpdatedRows) > 0;
  }

  /** The grant (family) and kind of a token of any kind. */
  findToken(digest: string): Promise<Pick<OAuthTokenRow, 'family' | 'kind'> | undefined> {
    return this.db
      .selectFrom('oauth_tokens')
      .select(['family', 'kind'])
      .where('token_digest', '=', digest)
      .executeTakeFirst();
  }

  /**
   * The access token of this digest, of an account that is not disabled (a disabled account's
   * tokens were revoked when it was disabled; refused here all the same).
   */
  findAccessToken(digest: string): Promise<AccessTokenRow | undefined> {
    return this.db
      .selectFrom('oauth_tokens')
      .innerJoin('oauth_clients', 'oauth_clients.client_id', 'oauth_tokens.client_id')
      .select([
        'oauth_tokens.user_id',
        'oauth_tokens.client_id',
        'oauth_tokens.scope',
        'oauth_tokens.expires_at',
        'oauth_tokens.revoked_at',
        'oauth_clients.status',
      ])
      .innerJoin('users', 'users.id', 'oauth_tokens.user_id')
      .where('users.disabled_at', 'is', null)
      .where('oauth_tokens.token_digest', '=', digest)
      .where('oauth_tokens.kind', '=', 'access')
      .executeTakeFirst();
  }

  async revokeToken(digest: string, now: number): Promise<void> {
    await this.db
      .updateTable('oauth_tokens')
      .set({ revoked_at: now })
      .where('token_digest', '=', digest)
      .where('revoked_at', 'is', null)
      .execute();
  }

  /** Revokes every token of one grant (the tokens a code gave, and their refreshes). */
  async revokeFamily(family: string, now: number): Promise<void> {
    await this.db
      .updateTable('oauth_tokens')
      .set({ revoked_at: now })
      .where('family', '=', family)
      .where('revoked_at', 'is', null)
      .execute();
  }

  async revokeUserTokens(userId: number, now: number): Promise<void> {
    await this.db
      .updateTable('oauth_tokens')
      .set({ revoked_at: now })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .execute();
  }

  /** Deletes the user's tokens and codes (the account was deleted). */
  async deleteUserGrants(userId: number): Promise<void> {
    await this.db.deleteFrom('oauth_tokens').where('user_id', '=', userId).execute();
    await this.db.deleteFrom('oauth_codes').where('user_id', '=', userId).execute();
  }
}
