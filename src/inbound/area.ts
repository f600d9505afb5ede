import type { SimulatedNetwork } from '../carriers/simulated/network.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/db/database.js';
import type { LinkTokens } from '../platform/link-tokens.js';
import type { Logger } from '../platform/logger.js';
import { InboundService, type InboundDeps } from './inbound-service.js';
import { InteractionsService } from './interactions-service.js';
import { UnsubscribeService } from './unsubscribe-service.js';
import { VirtualPhoneService } from './virtual-phone.js';

export interface InboundAreaDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** Conversation windows a reply opens (the conversations area). */
  conversations: InboundDeps['conversations'];
  /** STOP, START and the unsubscribe link (the suppression area). */
  optOuts: InboundDeps['optOuts'];
  /** Replies that may be a request to stop: marketing paused, a person decides (the suppression area). */
  reviews: InboundDeps['reviews'];
  /** Incoming messages, taps and opt-outs, told to their listeners (webhooks). */
  events: InboundDeps['events'];
  /** The automatic answers to STOP, START and HELP (the messaging area's sends). */
  replies: NonNullable<InboundDeps['replies']>;
  /** The simulated network, for the virtual phone; null with real carriers. */
  network: SimulatedNetwork | null;
  publicUrl: () => string;
  links: LinkTokens;
}

/** What the inbound area offers: incoming messages and taps, interactions, the unsubscribe pages' service, the virtual phone. */
export interface InboundArea {
  inbound: InboundService;
  interactions: InteractionsService;
  unsubscribe: UnsubscribeService;
  /** Null with real carriers. */
  virtualPhone: VirtualPhoneService | null;
}

/** Builds the inbound area (src/context.ts calls one such factory per area). */
export function inboundArea(d: InboundAreaDeps): InboundArea {
  const { db, clock } = d;
  return {
    inbound: new InboundService({ db, clock, logger: d.logger, conversations: d.conversations, optOuts: d.optOuts, reviews: d.reviews, events: d.events, replies: d.replies }),
    interactions: new InteractionsService({ db }),
    unsubscribe: new UnsubscribeService({ db, clock, optOuts: d.optOuts }),
    virtualPhone: d.network ? new VirtualPhoneService({ db, network: d.network, publicUrl: d.publicUrl, links: d.links }) : null,
  };
}
