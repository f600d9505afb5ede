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
import { OAuthService } from '../oauth/service.js';
import { ContactsService } from './contacts/service.js';
import { FieldsService } from './fields/service.js';
import { GroupsService } from './groups/service.js';
import { TemplatesService } from './templates/service.js';
import { SandboxService } from './sandbox/service.js';
import { createCarriers, type Carriers } from './carriers/index.js';
import { ContactDirectory } from './contacts/directory.js';
import { DEFAULT_DISPATCHER_OPTIONS, Dispatcher } from './messaging/dispatcher.js';
import { MessageEventHub } from './messaging/events.js';
import { JobsService } from './messaging/jobs-service.js';
import { cancelScheduledMessages, LogService } from './messaging/log-service.js';
import { noConversationPricing } from './messaging/pricing.js';
import { SendService } from './messaging/send-service.js';
import { StatsService } from './messaging/stats-service.js';
import { StatusService } from './messaging/status-service.js';
import { PreviewsService } from './previews/service.js';
import { ValidationService } from './validation-api/service.js';

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
  carriers: Carriers;
  /** Background work started by startWorkers (src/workers.ts). */
  dispatcher: Dispatcher;
  messageEvents: MessageEventHub;
}

export interface Services {
  accounts: AccountsService;
  apiKeys: ApiKeysService;
  users: UsersService;
  sessions: SessionsService;
  login: LoginService;
  senders: SendersService;
  /** OAuth 2.1 authorization server of /mcp (oauth/): clients, grants, tokens, connected apps. */
  oauth: OAuthService;
  fields: FieldsService;
  groups: GroupsService;
  contacts: ContactsService;
  templates: TemplatesService;
  sandbox: SandboxService;
  send: SendService;
  jobs: JobsService;
  log: LogService;
  stats: StatsService;
  status: StatusService;
  validation: ValidationService;
  previews: PreviewsService;
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
  const accounts = new AccountsService(db, clock);
  const fields = new FieldsService(db, clock);
  const groups = new GroupsService(db, clock);
  const carriers = createCarriers(config, db, clock, logger);
  const messageEvents = new MessageEventHub();
  const dispatcher = new Dispatcher(db, clock, carriers, accounts, messageEvents, logger, {
    ...DEFAULT_DISPATCHER_OPTIONS,
    perSenderPerSecond: config.senderMaxPerSecond,
  });
  const directory = new ContactDirectory(clock);
  const templates = new TemplatesService(db, clock, fields);
  const send = new SendService({ db, clock, config, accounts, directory, conversation: noConversationPricing, dispatcher });
  const services: Services = {
    accounts,
    apiKeys: new ApiKeysService(db, clock),
    users: new UsersService(db, clock),
    sessions: new SessionsService(db, clock, config.sessionTtlMs),
    login: new LoginService(db, clock, config.login),
    senders: new SendersService(db, clock),
    oauth: new OAuthService(db, clock, config),
    fields,
    groups,
    // Deleting or disabling contacts cancels their scheduled messages in the same transaction.
    contacts: new ContactsService(db, clock, accounts, fields, groups, {
      cancelScheduledFor: async (accountId, contactIds, tx) => (await cancelScheduledMessages(tx, accountId, { contactIds }, clock.now())).count,
    }),
    templates,
    sandbox: new SandboxService(db, clock, { publicUrl: () => config.publicUrl }),
    send,
    jobs: new JobsService(db, clock),
    log: new LogService(db, clock),
    stats: new StatsService(db, clock),
    status: new StatusService(db, clock, messageEvents, logger),
    validation: new ValidationService(accounts, fields, clock),
    previews: new PreviewsService({ db, clock, config, accounts, send, templates }),
  };
  // Generates and stores the token signing key on the very first start.
  await services.oauth.init();
  return {
    config,
    db,
    database,
    clock,
    logger,
    services,
    credentialResolvers: [(secret) => services.apiKeys.authenticate(secret), (token) => services.oauth.resolveAccessToken(token)],
    carriers,
    dispatcher,
    messageEvents,
  };
}
