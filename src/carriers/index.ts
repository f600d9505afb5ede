import type { Config } from '../config.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/db/database.js';
import type { LinkTokens } from '../platform/link-tokens.js';
import type { Logger } from '../platform/logger.js';
import type { CarrierEventSink, Carriers, RcsCarrier, SmsCarrier } from './carrier.js';
import { RbmCarrier } from './rbm/carrier.js';
import { SenderDirectory } from './sender-config.js';
import { SimulatedNetwork } from './simulated/network.js';
import { SmppCarrier } from './smpp/carrier.js';

export type { Carriers } from './carrier.js';

/** Something with background work of its own (a network, an adapter). */
interface Startable {
  start(sink: CarrierEventSink): Promise<void>;
  stop(): Promise<void>;
}

/**
 * RCS and SMS through different networks (e.g. RBM + simulated SMS, simulated RCS + SMPP): each
 * part is started and stopped once and hands its events to the same sink.
 */
export class CompositeCarriers implements Carriers {
  constructor(
    readonly rcs: RcsCarrier,
    readonly sms: SmsCarrier,
    private readonly parts: readonly Startable[],
  ) {}

  async start(sink: CarrierEventSink): Promise<void> {
    for (const p of this.parts) await p.start(sink);
  }

  async stop(): Promise<void> {
    await Promise.all(this.parts.map((p) => p.stop()));
  }
}

/**
 * Picks the networks named by configuration; RCS and SMS independently. The simulated network is
 * the embedded default (and stays the whole answer when both channels use it).
 */
export function createCarriers(config: Config, db: Db, clock: Clock, logger: Logger, links: LinkTokens | null = null): Carriers {
  if (config.carriers.rcs === 'simulated' && config.carriers.sms === 'simulated') return new SimulatedNetwork(db, clock, logger, { ...config.simulated, links });
  const senders = new SenderDirectory(db, () => clock.now());
  const parts: Startable[] = [];
  let simulated: SimulatedNetwork | null = null;
  const sim = () => {
    if (!simulated) parts.push((simulated = new SimulatedNetwork(db, clock, logger, { ...config.simulated, links })));
    return simulated;
  };

  let rcs: RcsCarrier;
  if (config.carriers.rcs === 'rbm' && config.rbm) {
    const rbm = new RbmCarrier(db, clock, logger.child({ carrier: 'rbm' }), {
      endpoint: config.rbm.endpoint,
      agent: { agentId: config.rbm.agentId, serviceAccountFile: config.rbm.serviceAccountFile, clientToken: config.rbm.webhookClientToken },
    }, senders);
    parts.push(rbm);
    rcs = rbm;
  } else {
    rcs = sim().rcs;
  }

  let sms: SmsCarrier;
  if (config.carriers.sms === 'smpp' && config.smpp) {
    const smpp = new SmppCarrier(db, clock, logger.child({ carrier: 'smpp' }), {
      url: config.smpp.url,
      window: config.smpp.window,
      enquireLinkMs: config.smpp.enquireLinkMs,
      systemType: config.smpp.systemType,
      bindMode: config.smpp.bindMode,
    }, senders);
    parts.push(smpp);
    sms = smpp;
  } else {
    sms = sim().sms;
  }
  return new CompositeCarriers(rcs, sms, parts);
}
