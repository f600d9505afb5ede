import express, { type Router } from 'express';
import type { Carriers } from '../carrier.js';
import { RbmCarrier } from './carrier.js';

/** Where Google's RBM platform posts events and user messages (configure it as the agent's webhook URL). */
export const RBM_WEBHOOK_PATH = '/webhooks/rbm';

/**
 * POST /webhooks/rbm: public (no API key, no session); authenticated by X-Goog-Signature, which
 * RbmCarrier.handleWebhook verifies. Answers 404 when RCS does not go through RBM.
 */
export function rbmWebhookRoutes(carriers: Carriers): Router {
  const router = express.Router();
  router.post(RBM_WEBHOOK_PATH, async (req, res, next) => {
    try {
      const rbm = carriers.rcs instanceof RbmCarrier ? carriers.rcs : null;
      if (!rbm) {
        res.status(404).json({ success: false, error: { code: 'ROUTE_NOT_FOUND', message: 'RBM is not the configured RCS carrier (CARRIER_RCS=rbm)' } });
        return;
      }
      const answer = await rbm.handleWebhook(req.body as unknown, req.get('x-goog-signature'));
      res.status(answer.status).type(answer.contentType).send(answer.body);
    } catch (err) {
      next(err);
    }
  });
  return router;
}
