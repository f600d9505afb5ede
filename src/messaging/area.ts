import type { Carriers } from '../carriers/carrier.js';
import type { Config } from '../config.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/db/database.js';
import type { LinkTokens } from '../platform/link-tokens.js';
import type { Logger } from '../platform/logger.js';
import { DEFAULT_DISPATCHER_OPTIONS, Dispatcher, type DispatcherOptions } from './dispatcher.js';
import type { MessageEvents } from './events.js';
import { JobsService } from './jobs-service.js';
import { LogService, type LogDeps } from './log-service.js';
import { SendService, type SendDeps } from './send-service.js';
import { StatsService } from './stats-service.js';

export interface MessagingAreaDeps {
  db: Db;
  clock: Clock;
  config: Config;
  logger: Logger;
  carriers: Carriers;
  /** Accounts with their price lists and balances (the accounts area). */
  accounts: SendDeps['accounts'];
  /** The recipients' contacts and merge values (the contacts area). */
  directory: SendDeps['directory'];
  /** Conversation windows and their pricing (the conversations area). */
  conversation: SendDeps['conversation'];
  /** The per-recipient throttle (the conversations area). */
  throttle: NonNullable<SendDeps['throttle']>;
  links: LinkTokens;
  /** Hears of each status change inside the transaction that made it (webhooks listen here). */
  events: MessageEvents;
  /** The instance claims are made under (src/platform/instances/). */
  claimer: NonNullable<DispatcherOptions['claimer']>;
  /** Who approved the previews messages were sent from (the previews area, built after this one). */
  approversOf: LogDeps['approversOf'];
}

/** What the messaging area offers: the durable queue, sends, jobs, the log and stats. */
export interface MessagingArea {
  dispatcher: Dispatcher;
  send: SendService;
  jobs: JobsService;
  log: LogService;
  stats: StatsService;
}

/**
 * Builds the messaging area (src/context.ts calls one such factory per area). The status engine
 * is built by context.ts after the inbound area, whose handler it calls.
 */
export function messagingArea(d: MessagingAreaDeps): MessagingArea {
  const { db, clock } = d;
  const dispatcher = new Dispatcher({
    db,
    clock,
    carriers: d.carriers,
    accounts: d.accounts,
    events: d.events,
    logger: d.logger,
    options: { ...DEFAULT_DISPATCHER_OPTIONS, perSenderPerSecond: d.config.senderMaxPerSecond, links: d.links, claimer: d.claimer },
  });
  return {
    dispatcher,
    send: new SendService({ db, clock, config: d.config, accounts: d.accounts, directory: d.directory, conversation: d.conversation, throttle: d.throttle, dispatcher, links: d.links }),
    jobs: new JobsService({ db, clock }),
    log: new LogService({ db, clock, approversOf: d.approversOf }),
    stats: new StatsService({ db, clock }),
  };
}
