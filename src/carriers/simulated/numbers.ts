/**
 * The simulated network's documented test numbers (docs/carriers.md). Behaviour is chosen by the
 * last four digits of any valid number, so every country in a price list has test numbers:
 *
 *   …9990  not RCS-capable: the RCS message falls back to SMS
 *   …9991  RCS-capable, but the RCS send fails at the carrier: falls back to SMS
 *   …9992  unreachable on both channels: the message FAILS
 *   …9993  delivered, never read
 *   …9994  accepted, then delivery fails (an asynchronous FAILED)
 *   other  RCS-capable; delivered, then read
 */
export type SimBehaviour = 'normal' | 'no_rcs' | 'rcs_fails' | 'unreachable' | 'never_read' | 'delivery_fails';

export function simBehaviour(e164: string): SimBehaviour {
  switch (e164.slice(-4)) {
    case '9990':
      return 'no_rcs';
    case '9991':
      return 'rcs_fails';
    case '9992':
      return 'unreachable';
    case '9993':
      return 'never_read';
    case '9994':
      return 'delivery_fails';
    default:
      return 'normal';
  }
}

export const SIM_TEST_NUMBERS = {
  rcsCapable: '+4915112340001',
  notRcsCapable: '+4915112349990',
  rcsFails: '+4915112349991',
  unreachable: '+4915112349992',
  neverRead: '+4915112349993',
  deliveryFails: '+4915112349994',
} as const;
