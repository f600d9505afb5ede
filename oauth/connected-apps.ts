import type { Clock } from '../src/platform/clock.js';
import type { Db } from '../src/platform/db/database.js';
import { parseJson } from '../src/platform/db/sql.js';
import { notFound } from '../src/platform/errors.js';
import { knownScopes } from './constants.js';
import type { ConnectedApp } from './schemas.js';

export interface ConnectedAppsDeps {
  db: Db;
  clock: Clock;
}

/** The console's view of OAuth grants: list per (client, person) and revoke all their tokens at once. */
export class ConnectedApps {
  constructor(private readonly d: ConnectedAppsDeps) {}

  async list(accountId: string): Promise<ConnectedApp[]> {
    const rows = await this.d.db
      .selectFrom('oauth_tokens')
      .innerJoin('oauth_clients', 'oauth_clients.client_id', 'oauth_tokens.client_id')
      .innerJoin('users', 'users.id', 'oauth_tokens.user_id')
      .select([
        'oauth_tokens.client_id',
        'oauth_tokens.user_id',
        'oauth_tokens.scopes',
        'oauth_tokens.created_at',
        'oauth_tokens.expires_at',
        'oauth_tokens.last_used_at',
        'oauth_clients.client_name',
        'oauth_clients.kind',
        'users.email',
      ])
      .where('oauth_tokens.account_id', '=', accountId)
      .where('oauth_tokens.revoked_at', 'is', null)
      .where('oauth_tokens.expires_at', '>', this.d.clock.now())
      .orderBy('oauth_tokens.created_at', 'desc')
      .execute();
    const apps = new Map<string, ConnectedApp>();
    for (const r of rows) {
      const key = `${r.client_id}\u0000${r.user_id}`;
      const scopes = parseJson<string[]>(r.scopes, []);
      const app = apps.get(key);
      if (!app) {
        apps.set(key, {
          clientId: r.client_id,
          clientName: r.client_name,
          kind: r.kind,
          userId: r.user_id,
          userEmail: r.email,
          scopes: knownScopes(scopes),
          activeTokens: 1,
          lastAuthorizedAt: r.created_at,
          lastUsedAt: r.last_used_at,
          expiresAt: r.expires_at,
        });
      } else {
        app.activeTokens += 1;
        app.scopes = knownScopes([...app.scopes, ...scopes]);
        if (r.last_used_at !== null && (app.lastUsedAt === null || r.last_used_at > app.lastUsedAt)) app.lastUsedAt = r.last_used_at;
      }
    }
    return [...apps.values()];
  }

  /** Revokes every token the client holds for this person of the account; 404 when there is none. */
  async revoke(accountId: string, clientId: string, userId: string): Promise<number> {
    const res = await this.d.db
      .updateTable('oauth_tokens')
      .set({ revoked_at: this.d.clock.now() })
      .where('account_id', '=', accountId)
      .where('client_id', '=', clientId)
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    const n = Number(res.numUpdatedRows);
    if (n === 0) throw notFound('Connected app');
    return n;
  }
}
