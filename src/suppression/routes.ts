import type { Response } from 'express';
import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { assertId } from '../platform/ids.js';
import { cursorListSchema } from '../platform/pagination.js';
import { actorOf } from '../platform/permissions.js';
import { CONSENT_CSV_COLUMNS, type ConsentRecord } from './consent.js';
import type { ConsentReviews } from './reviews.js';
import { ConsentReviewDecisionSchema, ConsentReviewQuerySchema, ConsentReviewSchema } from './schemas.js';

/**
 * Streams the account's whole consent record as CSV into `res` (REST export and the console's download): a chunk of
 * rows at a time, waiting for the client to take each, stopping when it goes away. Memory stays bounded by one chunk.
 */
export async function sendConsentCsv(consent: Pick<ConsentRecord, 'exportCsv'>, accountId: string, res: Response, now: number): Promise<void> {
  res.status(200);
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="consent-record-${new Date(now).toISOString().slice(0, 10)}.csv"`);
  res.setHeader('Cache-Control', 'no-store');
  const write = (chunk: string) =>
    new Promise<boolean>((resolve) => {
      if (res.destroyed || res.writableEnded) return resolve(false);
      if (res.write(chunk)) return resolve(true);
      const done = (ok: boolean) => () => {
        res.off('drain', onDrain);
        res.off('close', onClose);
        resolve(ok);
      };
      const onDrain = done(true);
      const onClose = done(false);
      res.once('drain', onDrain);
      res.once('close', onClose);
    });
  try {
    await consent.exportCsv(accountId, write);
    res.end();
  } catch (err) {
    // The status line is out: all a client can be told is that the body is cut short.
    res.destroy(err instanceof Error ? err : new Error(String(err)));
  }
}

/** GET /api/v1/consent/export: the account's consent record as CSV (read-only; no route writes the record). */
export function consentRecordRoutes({ consent, clock }: { consent: Pick<ConsentRecord, 'exportCsv'>; clock: { now(): number } }): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/export',
      operationId: 'exportConsentRecord',
      summary: "The account's whole consent record as CSV (text/csv), oldest first",
      description: `Columns: ${CONSENT_CSV_COLUMNS.join(', ')}. Streamed; phone as digits with country code. A cell starting with = + - @ is prefixed with an apostrophe (CSV injection).`,
      tags: ['Consent'],
      auth: 'contacts:read',
      responses: { 200: { description: 'One row per consent event', mediaTypes: ['text/csv'] } },
      handler: async ({ res, principal }) => {
        await sendConsentCsv(consent, principal.accountId, res, clock.now());
      },
    }),
  ];
}

const ReviewParams = z.object({ id: z.string() });
const REVIEW_TAGS = ['Consent'];

/**
 * The consent review list (issue #42): replies that may be a request to stop, marketing to the number paused until a
 * person decides. Reading needs contacts:read; deciding needs contacts:write and a credential whose sends do not need
 * approval (an assistant never decides whether a reply meant stop).
 */
export function consentReviewRoutes({ consentReviews }: { consentReviews: Pick<ConsentReviews, 'list' | 'get' | 'confirm' | 'release'> }): RouteSpec[] {
  const decision = (action: 'confirm' | 'release') =>
    defineRoute({
      method: 'post',
      path: `/reviews/:id/${action}`,
      operationId: action === 'confirm' ? 'confirmConsentReview' : 'releaseConsentReview',
      summary: action === 'confirm' ? 'Confirm the opt-out: the reply was a request to stop' : 'Release the number: the reply was not a request to stop',
      description:
        action === 'confirm'
          ? 'The number goes on the opt-out list (source api, the key as actor), its contact is disabled and the review closes as confirmed; webhooks contact.opted_out and consent.review. No confirmation text is sent.'
          : 'Marketing may go to the number again; the messages the pause cancelled are not sent again. On the consent record as released, with the key as actor; webhook consent.review.',
      tags: REVIEW_TAGS,
      auth: 'contacts:write',
      approvalBound: 'consent-decision',
      params: ReviewParams,
      body: ConsentReviewDecisionSchema,
      responses: {
        200: { description: 'The review as decided', schema: ConsentReviewSchema },
        400: { description: 'Not a review id (crv_…), or a note over 500 characters' },
        404: { description: 'No such review in this account' },
        409: { description: 'Already decided (by a person, or by the recipient\'s own STOP or START)' },
      },
      handler: async ({ params, body, principal }) => {
        assertReviewId(params.id);
        return action === 'confirm' ? consentReviews.confirm(principal.accountId, params.id, actorOf(principal), body.note) : consentReviews.release(principal.accountId, params.id, actorOf(principal), body.note);
      },
    });
  return [
    defineRoute({
      method: 'get',
      path: '/reviews',
      operationId: 'listConsentReviews',
      summary: 'Replies that may be a request to stop, waiting for a person (open by default), newest first',
      description: 'While a review is open, marketing to its number is paused: every send that is not transactional refuses it (CONSENT_UNDER_REVIEW).',
      tags: REVIEW_TAGS,
      auth: 'contacts:read',
      query: ConsentReviewQuerySchema,
      responses: { 200: { description: '{data, pagination}', schema: cursorListSchema(ConsentReviewSchema) }, 400: { description: 'A bad status or cursor' } },
      handler: ({ query, principal }) => consentReviews.list(principal.accountId, { status: query.status, limit: query.limit, cursor: query.cursor }),
    }),
    defineRoute({
      method: 'get',
      path: '/reviews/:id',
      operationId: 'getConsentReview',
      summary: 'One consent review',
      tags: REVIEW_TAGS,
      auth: 'contacts:read',
      params: ReviewParams,
      responses: { 200: { description: 'The review', schema: ConsentReviewSchema }, 400: { description: 'Not a review id (crv_…)' }, 404: { description: 'No such review in this account' } },
      handler: ({ params, principal }) => {
        assertReviewId(params.id);
        return consentReviews.get(principal.accountId, params.id);
      },
    }),
    decision('confirm'),
    decision('release'),
  ];
}

function assertReviewId(id: string): void {
  assertId('crv', id);
}
