import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/db/database.js';
import { BudgetsService } from './budgets.js';
import { BillingService } from './service.js';

/** What the billing area offers the others: balances and the credit ledger, budgets per credential. */
export interface BillingArea {
  /** Balances and the credit ledger: the only writer of money. */
  billing: BillingService;
  /** Limits of API keys and OAuth apps, and their per-day spend. */
  budgets: BudgetsService;
}

/** Builds the billing area (src/context.ts calls one such factory per area). */
export function billingArea(d: { db: Db; clock: Clock }): BillingArea {
  return { billing: new BillingService(d), budgets: new BudgetsService(d) };
}
