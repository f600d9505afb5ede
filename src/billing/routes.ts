import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { BalanceSchema, LedgerPageSchema, LedgerQuerySchema } from './schemas.js';
import type { BillingService } from './service.js';

/** Credit balance and history under {rcs_url} (issue #18). Takes only the billing service. */
export function billingRoutes(billing: Pick<BillingService, 'balance' | 'ledger'>): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/credits',
      operationId: 'getCreditBalance',
      summary: "The account's credit balance",
      tags: ['Credits'],
      auth: 'messages:read',
      responses: { 200: { description: 'Balance', schema: BalanceSchema } },
      handler: ({ principal }) => billing.balance(principal.accountId),
    }),
    defineRoute({
      method: 'get',
      path: '/credits/ledger',
      operationId: 'listCreditLedger',
      summary: 'Credit history, newest first: every debit, refund, re-pricing, top-up and adjustment with its reason',
      tags: ['Credits'],
      auth: 'messages:read',
      query: LedgerQuerySchema,
      responses: {
        200: { description: 'Page of ledger entries', schema: LedgerPageSchema },
        400: { description: 'Bad cursor, dates, kind or id format' },
        404: { description: 'jobId or messageId not found (or another account’s)' },
      },
      handler: ({ principal, query }) => billing.ledger(principal.accountId, query),
    }),
  ];
}
