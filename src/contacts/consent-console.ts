import { Router, type Request, type Response } from 'express';
import { h } from 'preact';
import type { AccountsService } from '../accounts/service.js';
import { assertSessionCsrf } from '../accounts/session-middleware.js';
import type { Clock } from '../platform/clock.js';
import { isAppError } from '../platform/errors.js';
import { field } from '../platform/http/form-fields.js';
import { sendPage } from '../platform/http/pages.js';
import { isId } from '../platform/ids.js';
import { credentialLabel, type Actor } from '../platform/permissions.js';
import type { ConsentRecord } from '../suppression/consent.js';
import type { ConsentReviews } from '../suppression/reviews.js';
import { sendConsentCsv } from '../suppression/routes.js';
import { ConsentPage } from './consent-page.js';
import type { ConsentStanding, ContactConsent } from './consent.js';
import type { ContactsService } from './service.js';
import { loggedIn } from '../platform/http/logged-in.js';

const PAGE_SIZE = 25;
/** Open reviews shown at once (the REST list pages through all). */
const REVIEWS_SHOWN = 50;

/** Fixed confirmations selected by ?done=…; nothing from the request is echoed. */
const NOTICES: Record<string, string> = {
  enabled: 'The contact was enabled. This is on the consent record as the business’s own change.',
  confirmed: 'The opt-out was confirmed: the number is on the opt-out list and the review is closed.',
  released: 'The number was released: marketing may go to it again. The messages the pause cancelled are not sent again.',
  decided: 'That review was already decided.',
  disabled: 'The contact was disabled. This is on the consent record as the business’s own change, not as the person’s opt-out.',
};

export interface ConsentConsoleDeps {
  contactConsent: Pick<ContactConsent, 'history'>;
  contacts: Pick<ContactsService, 'update'>;
  consent: Pick<ConsentRecord, 'exportCsv'>;
  consentReviews: Pick<ConsentReviews, 'list' | 'confirm' | 'release'>;
  accounts: Pick<AccountsService, 'get'>;
  clock: Clock;
}

/**
 * The console's Consent page (/console/consent): a person looks up a number or contact id and sees where it stands
 * and its consent history (paged, newest first), enables or disables its contact (recorded with the person as actor,
 * source console), and downloads the account's whole record as CSV (/console/consent/export.csv, streamed). Mounted at
 * /console/consent behind the console frame's requireLogin (src/app.ts).
 */
export function consentConsole(d: ConsentConsoleDeps): Router {
  const router = Router();
  router.get('/', async (req: Request, res: Response) => {
    const s = loggedIn(req);
    const q = typeof req.query.q === 'string' ? req.query.q.trim().slice(0, 64) : '';
    const cursor = typeof req.query.cursor === 'string' && req.query.cursor !== '' ? req.query.cursor : undefined;
    let standing: ConsentStanding | null = null;
    let events: Awaited<ReturnType<ContactConsent['history']>>['data'] = [];
    let next: string | null = null;
    let error: string | undefined;
    let status = 200;
    if (q !== '') {
      try {
        const page = await d.contactConsent.history(s.accountId, q, { limit: PAGE_SIZE, cursor });
        ({ status: standing, data: events } = page);
        next = page.pagination.nextCursor;
      } catch (err) {
        if (!isAppError(err)) throw err;
        if (err.code === 'NOT_FOUND') [status, error] = [404, 'Nothing is on record for that number or contact.'];
        else if (err.code === 'INVALID_ID' || err.code === 'VALIDATION_ERROR') [status, error] = [400, 'Enter a phone number with its country code (+49…) or a contact id (ct_…).'];
        else if (err.code === 'INVALID_CURSOR') [status, error] = [400, 'That page of the history does not exist. Start again from the newest events.'];
        else throw err;
      }
    }
    const account = await d.accounts.get(s.accountId);
    const reviews = await d.consentReviews.list(s.accountId, { status: 'open', limit: REVIEWS_SHOWN });
    const notice = typeof req.query.done === 'string' ? NOTICES[req.query.done] : undefined;
    sendPage(
      res,
      h(ConsentPage, {
        user: { email: s.user.email, csrfToken: s.csrfToken },
        accountName: account.name,
        timezone: account.timezone,
        query: q,
        standing,
        events,
        olderHref: standing && next ? `/console/consent?q=${encodeURIComponent(standing.phone)}&cursor=${encodeURIComponent(next)}` : null,
        paged: cursor !== undefined,
        error,
        notice,
        reviews: reviews.data,
        moreReviews: reviews.pagination.hasNext,
      }),
      status,
    );
  });

  // The business's own switch: recorded as disabled/enabled with the person, never as the recipient's opt-out.
  router.post('/contact', async (req: Request, res: Response) => {
    const s = assertSessionCsrf(req);
    const contactId = field(req, 'contactId');
    const action = field(req, 'action');
    if (!isId('ct', contactId) || (action !== 'enable' && action !== 'disable')) {
      res.redirect(303, '/console/consent');
      return;
    }
    const actor: Actor = { sendsNeedApproval: false, credentialId: s.user.id, label: credentialLabel('user', s.user.email), via: 'session' };
    const contact = await d.contacts.update(s.accountId, contactId, { disabled: action === 'disable' }, actor);
    res.redirect(303, `/console/consent?q=${encodeURIComponent(`+${contact.phone}`)}&done=${action}d`);
  });

  // A person decides a consent review: confirm the opt-out (source console, the person as actor) or release the number.
  router.post('/review', async (req: Request, res: Response) => {
    const s = assertSessionCsrf(req);
    const reviewId = field(req, 'reviewId');
    const action = field(req, 'action');
    if (!isId('crv', reviewId) || (action !== 'confirm' && action !== 'release')) {
      res.redirect(303, '/console/consent');
      return;
    }
    const actor: Actor = { sendsNeedApproval: false, credentialId: s.user.id, label: credentialLabel('user', s.user.email), via: 'session' };
    try {
      const review = action === 'confirm' ? await d.consentReviews.confirm(s.accountId, reviewId, actor) : await d.consentReviews.release(s.accountId, reviewId, actor);
      res.redirect(303, `/console/consent?q=${encodeURIComponent(review.phone)}&done=${action === 'confirm' ? 'confirmed' : 'released'}`);
    } catch (err) {
      if (!isAppError(err) || (err.code !== 'CONFLICT' && err.code !== 'NOT_FOUND')) throw err;
      res.redirect(303, '/console/consent?done=decided');
    }
  });

  router.get('/export.csv', async (req: Request, res: Response) => {
    await sendConsentCsv(d.consent, loggedIn(req).accountId, res, d.clock.now());
  });
  return router;
}
