import type { Clock } from '../platform/clock.js';
import type { ChangeStamp } from '../platform/db/change-stamp.js';
import type { Db } from '../platform/db/database.js';
import type { Sealer } from '../platform/sealing.js';
import { ApiKeysService } from './api-keys.js';
import { LoginService, type LoginPolicy } from './login.js';
import { AccountsService, type AccountsDeps } from './service.js';
import { SessionsService } from './sessions.js';
import { UsersService } from './users.js';

export interface AccountsAreaDeps {
  db: Db;
  clock: Clock;
  /** Seals the people's TOTP secrets and known-device keys. */
  sealer: Sealer;
  /** Opens a new account's balance and sets credits (the billing area writes money). */
  billing: AccountsDeps['billing'];
  /** Tells the API keys' principal cache when keys or accounts may have changed. */
  stamp: ChangeStamp;
  sessionTtlMs: number;
  loginPolicy: LoginPolicy;
}

/** What the accounts area offers: accounts, their API keys, people, sessions and the login. */
export interface AccountsArea {
  accounts: AccountsService;
  apiKeys: ApiKeysService;
  users: UsersService;
  sessions: SessionsService;
  login: LoginService;
}

/** Builds the accounts area (src/context.ts calls one such factory per area). */
export function accountsArea(d: AccountsAreaDeps): AccountsArea {
  const { db, clock, sealer } = d;
  return {
    accounts: new AccountsService({ db, clock, billing: d.billing }),
    apiKeys: new ApiKeysService({ db, clock, stamp: d.stamp }),
    users: new UsersService({ db, clock, sealer }),
    sessions: new SessionsService({ db, clock, ttlMs: d.sessionTtlMs }),
    login: new LoginService({ db, clock, policy: d.loginPolicy, sealer }),
  };
}
