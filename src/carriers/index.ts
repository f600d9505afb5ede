import type { Config } from '../config.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/db/database.js';
import type { Logger } from '../platform/logger.js';
import type { Carriers } from './carrier.js';
import { SimulatedNetwork } from './simulated/network.js';

export type { Carriers } from './carrier.js';

/** Picks the networks named by configuration. The simulated one is the embedded default. */
export function createCarriers(config: Config, db: Db, clock: Clock, logger: Logger): Carriers {
  if (config.carriers.rcs !== 'simulated' || config.carriers.sms !== 'simulated') {
    throw new Error(`Carrier adapters rbm/smpp are not available in this build yet; use CARRIER_RCS=simulated and CARRIER_SMS=simulated`);
  }
  return new SimulatedNetwork(db, clock, logger, config.simulated);
}
