import type { Config } from './config.js';
import { AccountsService } from './accounts/service.js';
import { ApiKeysService } from './accounts/api-keys.js';
import { LoginService } from './accounts/login.js';
import { SessionsService } from './accounts/sessions.js';
import { UsersService } from './accounts/users.js';
import { BillingService } from './billing/service.js';
import { BudgetsService } from './billing/budgets.js';
import { type Clock, systemClock } from './platform/clock.js';
import { changeStampFor } from './platform/db/change-stamp.js';
import { RateLimitCounters } from './platform/http/rate-limit-store.js';
import { openDatabase, type Db, type OpenDb } from './platform/db/database.js';
import type { CredentialResolver } from './platform/http/auth.js';
import { createLogger, type Logger } from './platform/logger.js';
import { secureDirectory } from './platform/data-dir.js';
import type { Sealer } from './platform/sealing.js';
import { openSecretsAtRest } from './bootstrap/secrets-at-rest.js';
import { LinkTokens } from './platform/link-tokens.js';
import { SendersService } from './senders/service.js';
import { OAuthService } from '../oauth/service.js';
import { ContactsService } from './contacts/service.js';
import { recordContactWrites } from './contacts/provenance.js';
import { FieldsService } from './fields/service.js';
import { GroupsService } from './groups/service.js';
import { TemplatesService } from './templates/service.js';
import { SandboxRateLimiter } from './sandbox/rate-limit.js';
import { SandboxService } from './sandbox/service.js';
import { createCarriers, type Carriers } from './carriers/index.js';
import { ContactDirectory } from './contacts/directory.js';
import { optOutContacts } from './contacts/opt-out-port.js';
import { DEFAULT_DISPATCHER_OPTIONS, Dispatcher } from './messaging/dispatcher.js';
import { newInstanceId } from './platform/instances/identity.js';
import { InstanceRegistry } from './platform/instances/registry.js';
import { MessageEventHub } from './messaging/events.js';
import { JobsService } from './messaging/jobs-service.js';
import { cancelScheduledMessages, LogService } from './messaging/log-service.js';
import { SendService } from './messaging/send-service.js';
import { StatsService } from './messaging/stats-service.js';
import { StatusService } from './messaging/status-service.js';
import { PreviewsService } from './previews/service.js';
import { PreviewEventHub } from './previews/events.js';
import { PreviewMediaFetcher } from './previews/media-fetch.js';
import type { ResolveAll } from './platform/net/network-guard.js';
import { ValidationService } from './validation-api/service.js';
import { SimulatedNetwork } from './carriers/simulated/network.js';
import { ConversationsService } from './conversations/service.js';
import { RecipientRateLimiter } from './conversations/throttle.js';
import { EngagementEventHub } from './inbound/events.js';
import { InboundService } from './inbound/inbound-service.js';
import { InteractionsService } from './inbound/interactions-service.js';
import { OptOutService } from './suppression/opt-outs.js';
import { ConsentRecord } from './suppression/consent.js';
import { ContactConsent } from './contacts/consent.js';
import { UnsubscribeService } from './inbound/unsubscribe-service.js';
import { VirtualPhoneService } from './inbound/virtual-phone.js';
import { WebhooksService } from './webhooks/service.js';
import { webhookListeners } from './webhooks/listeners.js';
import { FormsService } from './forms/service.js';
import { HealthService } from './health/service.js';
import { IdempotencyStore } from './platform/idempotency/store.js';

/** Everything a request handler, tool or worker may use, built once at start-up. */
export interface AppContext {
  config: Config;
  db: Db;
  database: OpenDb;
  /** Seals secrets kept in the database with the key kept outside it (src/platform/sealing.ts). */
  sealer: Sealer;
  /** Tokens of unsubscribe and opt-in links, stored masked (src/platform/link-tokens.ts). */
  links: LinkTokens;
  clock: Clock;
  logger: Logger;
  services: Services;
  /** Turn a presented key or token into a principal; OAuth adds its resolver here. */
  credentialResolvers: CredentialResolver[];
  carriers: Carriers;
  /** Background work started by startWorkers (src/workers.ts). */
  dispatcher: Dispatcher;
  /** This process among the instances on the database (src/platform/instances/): started and stopped with the workers. */
  instances: InstanceRegistry;
  messageEvents: MessageEventHub;
  /** Inbound messages, taps/replies and opt-outs (src/inbound/events.ts); webhooks add listeners. */
  engagementEvents: EngagementEventHub;
}

export interface Services {
  accounts: AccountsService;
  /** Balances and the credit ledger (src/billing/): the only writer of money. */
  billing: BillingService;
  /** Budgets per credential: limits of API keys and OAuth apps, and their per-day spend (src/billing/budgets.ts). */
  budgets: BudgetsService;
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
  /** The server's guarded fetch of preview images for the share page (src/previews/media-fetch.ts). */
  previewMedia: PreviewMediaFetcher;
  /** Conversation windows and billing (§3.3), billing preview, per-recipient throttle (src/conversations/). */
  conversations: ConversationsService;
  /** Taps and replies for analytics (list_rcs_interactions). */
  interactions: InteractionsService;
  /** Incoming messages and taps from carriers (registered with `status`). */
  inbound: InboundService;
  optOuts: OptOutService;
  /** The append-only consent record of every number (src/suppression/consent.ts). */
  consent: ConsentRecord;
  /** A contact's or number's consent record and standing (REST, get_contact, console). */
  contactConsent: ContactConsent;
  unsubscribe: UnsubscribeService;
  /** The simulated network's virtual phone (/phone); null with real carriers. */
  virtualPhone: VirtualPhoneService | null;
  /** Webhook endpoints and the outbox; its DeliveryWorker (`webhooks.worker`) is started by startWorkers. */
  webhooks: WebhooksService;
  /** Opt-in forms and double opt-in (§3.6). */
  forms: FormsService;
  /** Client Idempotency-Key records of the REST routes marked idempotent; swept by startWorkers. */
  idempotency: IdempotencyStore;
  /** Database up, carriers configured, server time: /health, /status and rcs_health. */
  health: HealthService;
  /** Hit counters of the express-rate-limit limiters (public form pages), shared by every instance; swept by startWorkers. */
  rateLimits: RateLimitCounters;
}

export interface ContextOptions {
  clock?: Clock;
  logger?: Logger;
  /** DNS of the share page's media fetches; tests pass one that resolves no public name. */
  previewMediaResolve?: ResolveAll;
}

export async function createContext(config: Config, options: ContextOptions = {}): Promise<AppContext> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.logLevel);
  // The data directory 0700 and the database files 0600; one log line names what was tightened.
  const tightened = config.databaseFile === ':memory:' ? [] : secureDirectory(config.dataDir);
  const onNewerSchema = (newer: string[]) =>
    logger.warn({ newer }, `the database was migrated by a newer version of this server (${newer.join(', ')}); running on it without migrating — replace this instance with the new version`);
  const database: OpenDb = config.postgres
    ? await openDatabase(config.postgres, { onPoolError: (err) => logger.warn({ err }, 'PostgreSQL: idle connection failed'), onNewerSchema })
    : await openDatabase(config.databaseFile, { onModesTightened: (c) => tightened.push(...c), onNewerSchema });
  if (tightened.length > 0) logger.warn({ changed: tightened }, `tightened permissions: ${tightened.map((c) => `${c.path} ${c.from} → ${c.to}`).join(', ')}`);
  const db = database.db;
  let sealer: Sealer;
  try {
    sealer = await openSecretsAtRest(db, config, logger);
  } catch (err) {
    await database.close();
    throw err;
  }
  const links = new LinkTokens(sealer);
  const billing = new BillingService({ db, clock });
  const accounts = new AccountsService({ db, clock, billing });
  // A custom field write is recorded on the contacts row by contacts/, which owns that row.
  const fields = new FieldsService({ db, clock, recordContactWrites });
  const validation = new ValidationService({ accounts, fields, clock });
  const groups = new GroupsService({ db, clock });
  const carriers = createCarriers(config, db, clock, logger, links);
  const messageEvents = new MessageEventHub();
  // Who this process is among the instances on the database: claims carry its id, so a dead one's are given back at once.
  const instances = new InstanceRegistry({ db, logger, id: newInstanceId() });
  const dispatcher = new Dispatcher({
    db,
    clock,
    carriers,
    accounts,
    events: messageEvents,
    logger,
    options: { ...DEFAULT_DISPATCHER_OPTIONS, perSenderPerSecond: config.senderMaxPerSecond, links, claimer: instances },
  });
  const directory = new ContactDirectory({ clock });
  const templates = new TemplatesService({ db, clock, fields });
  const throttle = new RecipientRateLimiter({ db, clock, options: config.recipientRateLimit });
  const conversations = new ConversationsService({ db, clock, accounts, throttle });
  const send = new SendService({ db, clock, config, accounts, directory, conversation: conversations, throttle, dispatcher, links });
  const engagementEvents = new EngagementEventHub();
  // An opt-out cancels what is still scheduled or queued for the number, in the same transaction.
  const consent = new ConsentRecord({ db });
  const optOuts = new OptOutService({
    db,
    contacts: optOutContacts,
    events: engagementEvents,
    cancelPending: async (tx, accountId, messageIds, at) => (await cancelScheduledMessages(tx, accountId, { messageIds }, at, ['SCHEDULED', 'SENDING'])).count,
    consent,
  });
  const inbound = new InboundService({ db, clock, logger, conversations, optOuts, events: engagementEvents, replies: send });
  const status = new StatusService({ db, clock, events: messageEvents, logger, inbound });
  // Webhooks: outbox rows are written by these listeners inside the transaction of each change.
  const webhooks = new WebhooksService({ db, sealer, clock, config, logger, claimer: instances });
  instances.holds({ name: 'messages', releaseClaimsOf: (ids) => dispatcher.releaseClaimsOf(ids), renewClaims: () => dispatcher.renewClaims() });
  instances.holds({ name: 'webhook deliveries', releaseClaimsOf: (ids) => webhooks.worker.releaseClaimsOf(ids) });
  const hooks = webhookListeners(webhooks);
  messageEvents.add(hooks.messages);
  engagementEvents.add(hooks.engagement);
  const previewEvents = new PreviewEventHub();
  previewEvents.add(hooks.previews);
  // Deleting or disabling contacts cancels their scheduled messages in the same transaction.
  const contacts = new ContactsService({
    db,
    clock,
    accounts,
    fields,
    groups,
    lifecycle: {
      // Scheduled ones and queued ones not yet handed to a carrier (later batch slices, retries).
      cancelScheduledFor: async (accountId, contactIds, tx) => (await cancelScheduledMessages(tx, accountId, { contactIds }, clock.now(), ['SCHEDULED', 'SENDING'])).count,
    },
    consent,
  });
  const previews = new PreviewsService({ db, clock, config, accounts, send, templates, events: previewEvents, contentChecks: validation });
  const services: Services = {
    accounts,
    billing,
    budgets: new BudgetsService({ db, clock }),
    apiKeys: new ApiKeysService({ db, clock, stamp: changeStampFor(database) }),
    users: new UsersService({ db, clock, sealer }),
    sessions: new SessionsService({ db, clock, ttlMs: config.sessionTtlMs }),
    login: new LoginService({ db, clock, policy: config.login, sealer }),
    senders: new SendersService({ db, clock, stamp: changeStampFor(database) }),
    oauth: new OAuthService({ db, clock, config, sealer }),
    fields,
    groups,
    contacts,
    templates,
    sandbox: new SandboxService({ db, clock, publicUrl: () => config.publicUrl, limiter: new SandboxRateLimiter({ db, clock }) }),
    send,
    jobs: new JobsService({ db, clock }),
    // The log names who approved the preview a message was sent from.
    log: new LogService({ db, clock, approversOf: (accountId, ids) => previews.approversOf(accountId, ids) }),
    stats: new StatsService({ db, clock }),
    status,
    validation,
    previews,
    previewMedia: new PreviewMediaFetcher({ allowPrivateNetwork: config.dangerouslyAllowPrivateNetworkTargets, resolve: options.previewMediaResolve }),
    conversations,
    interactions: new InteractionsService({ db }),
    inbound,
    optOuts,
    consent,
    contactConsent: new ContactConsent({ db, consent }),
    unsubscribe: new UnsubscribeService({ db, clock, optOuts }),
    virtualPhone: carriers instanceof SimulatedNetwork ? new VirtualPhoneService({ db, network: carriers, publicUrl: () => config.publicUrl, links }) : null,
    webhooks,
    forms: new FormsService({ db, clock, config, logger, accounts, contacts, fields, groups, send, webhooks, links, consent }),
    idempotency: new IdempotencyStore({ db, clock }),
    health: new HealthService({ database, carriers, clock }),
    rateLimits: new RateLimitCounters({ db, clock }),
  };
  // Generates and stores the token signing key on the very first start.
  await services.oauth.init();
  // Generates and stores the key that seals webhook signing secrets on the very first start.
  await webhooks.init();
  return {
    config,
    db,
    database,
    sealer,
    links,
    clock,
    logger,
    services,
    credentialResolvers: [(secret) => services.apiKeys.authenticate(secret), (token) => services.oauth.resolveAccessToken(token)],
    carriers,
    dispatcher,
    instances,
    messageEvents,
    engagementEvents,
  };
}
