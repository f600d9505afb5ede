import type { Response } from 'express';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { CONSENT_CSV_COLUMNS, type ConsentRecord } from './consent.js';

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
