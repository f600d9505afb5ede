import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { ConsentQuerySchema } from '../suppression/schemas.js';
import { ContactConsentPageSchema, type ContactConsent } from './consent.js';

const IdParams = z.object({ id: z.string() });
const TAGS = ['Contacts'];

/** GET /api/v1/contacts/{id}/consent: a contact's or number's consent record (read-only; nothing edits it). */
export function contactConsentRoutes({ contactConsent }: { contactConsent: Pick<ContactConsent, 'history'> }): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/:id/consent',
      operationId: 'getContactConsent',
      summary: 'The consent record of a contact or number, newest first',
      description:
        '{id} is a contact id (ct_…) or a phone number, as in GET /contacts/{id}. Both keep answering after the contact was deleted: the record and the opt-out belong to the number, and a deleted contact\'s id answers the record of the number its latest event names (`status.contactId` is then the number\'s contact now, or null). Append-only: no route changes it. `status` says where the number stands now.',
      tags: TAGS,
      auth: 'contacts:read',
      params: IdParams,
      query: ConsentQuerySchema,
      responses: {
        200: { description: '{data, pagination, status}', schema: ContactConsentPageSchema },
        400: { description: 'Neither an id nor a phone number, or a bad cursor' },
        404: { description: 'Unknown contact, or a number with nothing on record' },
      },
      handler: ({ params, query, principal }) => contactConsent.history(principal.accountId, params.id, { limit: query.limit, cursor: query.cursor }),
    }),
  ];
}
