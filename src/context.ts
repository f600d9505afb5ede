import type { Config } from './config.js';
import { AccountsService } from './accounts/service.js';
import { ApiKeysService } from './accounts/api-keys.js';
import { LoginService } from './accounts/login.js';
import { SessionsService } from './accounts/sessions.js';
import { UsersService } from './accounts/users.js';
import { type Clock, systemClock } from './platform/clock.js';
import { openDatabase, type Db, type OpenDb } from './platform/db/database.js';
import type { CredentialResolver } from './platform/http/auth.js';
import { createLogger, type Logger } from './platform/logger.js';
import { SendersService } from './senders/service.js';

/** Everything a request handler, tool or worker may use, built once at start-up. */
export interface AppContext {
  config: Config;
  db: Db;
  database: OpenDb;
  clock: Clock;
  logger: Logger;
  services: Services;
  /** Turn a presented key or token into a principal; OAuth adds its resolver here. */
  credentialResolvers: CredentialResolver[];
}

export interface Services {
  accounts: AccountsService;
  apiKeys: ApiKeysService;
  users: UsersService;
  sessions: SessionsService;
  login: LoginService;
  senders: SendersService;
}

export interface ContextOptions {
  clock?: Clock;
  logger?: Logger;
}

export async function createContext(config: Config, options: ContextOptions = {}): Promise<AppContext> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.logLevel);
  const database = await openDatabase(config.databaseFile);
  const db = database.db;
  const services: Services = {
    accounts: new AccountsService(db, clock),
    apiKeys: new ApiKeysService(db, clock),
    users: new UsersService(db, clock),
    sessions: new SessionsService(db, clock, config.sessionTtlMs),
    login: new LoginService(db, clock, config.login),
    senders: new SendersService(db, clock),
  };
  return {
    config,
    db,
    database,
    clock,
    logger,
    services,
    credentialResolvers: [(secret) => services.apiKeys.authenticate(secret)],
  };
}
