import type { Config } from './config.js';
import type { AccountsService } from './accounts/service.js';
import type { ApiKeysService } from './accounts/api-keys.js';
import type { LoginService } from './accounts/login.js';
import type { SessionsService } from './accounts/sessions.js';
import type { UsersService } from './accounts/users.js';
import { accountsArea } from './accounts/area.js';
import type { BillingService } from './billing/service.js';
import type { BudgetsService } from './billing/budgets.js';
import { billingArea } from './billing/area.js';
import { contactsArea } from './contacts/area.js';
import { inboundArea } from './inbound/area.js';
import { messagingArea } from './messaging/area.js';
import { suppressionArea } from './suppression/area.js';
import { type Clock, systemClock } from './platform/clock.js';
import { changeStampFor } from './platform/db/change-stamp.js';
import { RateLimitCounters } from './platform/http/rate-limit-store.js';
import { openDatabase } from './bootstrap/database.js';
import { type Db, type OpenDb } from './platform/db/database.js';
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
import { optOutContacts } from './contacts/opt-out-port.js';
import type { Dispatcher } from './messaging/dispatcher.js';
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
import type { ConsentReviews } from './suppression/reviews.js';
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
  /** Replies that may be a request to stop, waiting for a person (src/suppression/reviews.ts). */
  consentReviews: ConsentReviews;
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
  // One factory per area (src/<area>/area.ts); the lines between them connect areas through narrow ports.
  const { billing, budgets } = billingArea({ db, clock });
  const accountsAreaServices = accountsArea({ db, clock, sealer, billing, stamp: changeStampFor(database), sessionTtlMs: config.sessionTtlMs, loginPolicy: config.login });
  const { accounts } = accountsAreaServices;
  // A custom field write is recorded on the contacts row by contacts/, which owns that row.
  const fields = new FieldsService({ db, clock, recordContactWrites });
  const validation = new ValidationService({ accounts, fields, clock });
  const groups = new GroupsService({ db, clock });
  const templates = new TemplatesService({ db, clock, fields });
  const carriers = createCarriers(config, db, clock, logger, links);
  const messageEvents = new MessageEventHub();
  const engagementEvents = new EngagementEventHub();
  const previewEvents = new PreviewEventHub();
  // Who this process is among the instances on the database: claims carry its id, so a dead one's are given back at once.
  const instances = new InstanceRegistry({ db, logger, id: newInstanceId() });
  // An opt-out disables the number's contact (contacts/ writes it) and cancels what is still scheduled or queued for
  // the number, in the same transaction.
  const { consent, optOuts, consentReviews } = suppressionArea({
    db,
    clock,
    contacts: optOutContacts,
    events: engagementEvents,
    cancelPending: async (tx, accountId, messageIds, at) => (await cancelScheduledMessages(tx, accountId, { messageIds }, at, ['SCHEDULED', 'SENDING'])).count,
  });
  // Deleting or disabling contacts cancels their scheduled messages and queued ones not yet handed to a carrier
  // (later batch slices, retries), in the same transaction.
  const { contacts, contactConsent, directory } = contactsArea({
    db,
    clock,
    accounts,
    fields,
    groups,
    lifecycle: { cancelScheduledFor: async (accountId, contactIds, tx) => (await cancelScheduledMessages(tx, accountId, { contactIds }, clock.now(), ['SCHEDULED', 'SENDING'])).count },
    consent,
  });
  const throttle = new RecipientRateLimiter({ db, clock, options: config.recipientRateLimit });
  const conversations = new ConversationsService({ db, clock, accounts, throttle });
  // The previews area is built below; the log asks it who approved the previews messages were sent from.
  let approversOf: PreviewsService['approversOf'] = () => Promise.reject(new Error('previews are not built yet'));
  const messaging = messagingArea({
    db,
    clock,
    config,
    logger,
    carriers,
    accounts,
    directory,
    conversation: conversations,
    throttle,
    links,
    events: messageEvents,
    claimer: instances,
    approversOf: (accountId, ids) => approversOf(accountId, ids),
  });
  const { dispatcher, send } = messaging;
  const inbound = inboundArea({
    db,
    clock,
    logger,
    conversations,
    optOuts,
    reviews: consentReviews,
    events: engagementEvents,
    replies: send,
    network: carriers instanceof SimulatedNetwork ? carriers : null,
    publicUrl: () => config.publicUrl,
    links,
  });
  // The status engine hands incoming messages and taps to the inbound area, built first.
  const status = new StatusService({ db, clock, events: messageEvents, logger, inbound: inbound.inbound });
  // Webhooks: outbox rows are written by these listeners inside the transaction of each change.
  const webhooks = new WebhooksService({ db, sealer, clock, config, logger, claimer: instances });
  instances.holds({ name: 'messages', releaseClaimsOf: (ids) => dispatcher.releaseClaimsOf(ids), renewClaims: () => dispatcher.renewClaims() });
  instances.holds({ name: 'webhook deliveries', releaseClaimsOf: (ids) => webhooks.worker.releaseClaimsOf(ids) });
  const hooks = webhookListeners(webhooks);
  messageEvents.add(hooks.messages);
  engagementEvents.add(hooks.engagement);
  previewEvents.add(hooks.previews);
  const previews = new PreviewsService({ db, clock, config, accounts, send, templates, events: previewEvents, contentChecks: validation });
  approversOf = (accountId, ids) => previews.approversOf(accountId, ids);
  const services: Services = {
    ...accountsAreaServices,
    billing,
    budgets,
    senders: new SendersService({ db, clock, stamp: changeStampFor(database) }),
    oauth: new OAuthService({ db, clock, config, sealer }),
    fields,
    groups,
    contacts,
    templates,
    sandbox: new SandboxService({ db, clock, publicUrl: () => config.publicUrl, limiter: new SandboxRateLimiter({ db, clock }) }),
    send,
    jobs: messaging.jobs,
    log: messaging.log,
    stats: messaging.stats,
    status,
    validation,
    previews,
    previewMedia: new PreviewMediaFetcher({ allowPrivateNetwork: config.dangerouslyAllowPrivateNetworkTargets, resolve: options.previewMediaResolve }),
    conversations,
    ...inbound,
    optOuts,
    consent,
    consentReviews,
    contactConsent,
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
