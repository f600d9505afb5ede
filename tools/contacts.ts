import { z } from 'zod';
import { BULK_CONTACTS_MAX } from '../src/contacts/limits.js';
import {
  BULK_STATUS_MAX_IDS,
  BulkContactsSchema,
  BulkDisableResultSchema,
  BulkDisableSchema,
  BulkEnableResultSchema,
  BulkEnableSchema,
  BulkResultSchema,
  ContactSchema,
  CountContactsQuerySchema,
  CreateContactSchema,
  GetContactQuerySchema,
  ListContactsQuerySchema,
  UpdateContactSchema,
} from '../src/contacts/schemas.js';
import { cursorListSchema, dataResponseSchema, ok } from '../src/platform/pagination.js';
import { ConsentBriefSchema } from '../src/contacts/consent.js';
import { actorOf } from '../src/platform/permissions.js';
import { DELETE, READ, WRITE, WRITE_IDEMPOTENT, cursorPaging, defineTool } from './types.js';

/*
 * Every address-book tool takes a strict object: a misspelt argument (groupId for group, say) is
 * a VALIDATION_ERROR naming it rather than being dropped, which would silently widen a list.
 *
 * Contacts (spec §2.8, §4.4) as MCP tools. Each tool is the REST route of the same name with the
 * same schemas and the same response body (src/contacts/routes.ts), so structuredContent equals
 * what REST answers (get_contact adds the contact's consent standing and latest events, which REST serves at
 * /contacts/{id}/consent). Naming rule across the address-book tools: the tool's own resource is `id`;
 * other resources are named by type (groupId, contactId, templateGroupId).
 */

/** A top-level id argument: checked by the service, so a malformed one is INVALID_ID as on REST. */
export const idArg = (what: string, prefix: string) =>
  z.string().min(1).max(64).describe(`The ${what} id (${prefix}_…).`);

/** REST takes `disabled` as the query text true/false; an assistant passes a boolean. */
const DisabledFilter = z.boolean().optional().describe(ListContactsQuerySchema.shape.disabled.description ?? 'true: only disabled contacts; false: only enabled; omit for all.');

const ContactResponse = dataResponseSchema(ContactSchema);

export const listContacts = defineTool({
  name: 'list_contacts',
  title: 'List contacts',
  description: 'Contacts, newest first unless sorted, filtered by search, disabled or group.',
  toolset: 'contacts',
  permissions: ['contacts:read'],
  input: z.strictObject({ ...ListContactsQuerySchema.shape, disabled: DisabledFilter }),
  output: cursorListSchema(ContactSchema),
  annotations: READ,
  paging: () => cursorPaging(),
  uses: ['contacts'],
  run: ({ contacts, principal }, input) =>
    contacts.list(principal.accountId, {
      limit: input.limit,
      cursor: input.cursor,
      search: input.search,
      phone: input.phone,
      disabled: input.disabled,
      group: input.group,
      sort: input.sort,
      order: input.order,
      includeCustomFields: input.include === 'customFields',
    }),
});

export const countContacts = defineTool({
  name: 'count_contacts',
  title: 'Count contacts',
  description: 'How many contacts match search, disabled and group, without listing them: the audience size before a large send.',
  toolset: 'contacts',
  permissions: ['contacts:read'],
  input: z.strictObject({ ...CountContactsQuerySchema.shape, disabled: DisabledFilter }),
  output: z.object({ success: z.literal(true), count: z.number().int() }),
  annotations: READ,
  uses: ['contacts'],
  run: async ({ contacts, principal }, input) => ({ success: true as const, ...(await contacts.count(principal.accountId, input)) }),
});

export const getContact = defineTool({
  name: 'get_contact',
  title: 'Get a contact',
  description: 'One contact by its id (ct_…) or by phone number with country code, with its opt-out status and latest consent events: check a number before create_contact.',
  toolset: 'contacts',
  permissions: ['contacts:read'],
  input: z.strictObject({
    id: z.string().min(1).max(64).describe('Contact id (ct_…) or phone number.'),
    ...GetContactQuerySchema.shape,
  }),
  output: dataResponseSchema(ContactSchema.extend({ consent: ConsentBriefSchema })),
  annotations: READ,
  uses: ['contacts', 'contactConsent'],
  run: async ({ contacts, contactConsent, principal }, input) => {
    const contact = await contacts.get(principal.accountId, input.id, { includeCustomFields: input.include === 'customFields' });
    return ok({ ...contact, consent: await contactConsent.brief(principal.accountId, contact.phone) });
  },
});

export const createContact = defineTool({
  name: 'create_contact',
  title: 'Create a contact',
  description: 'Creates one contact; a used phone is CONFLICT naming existingContactId (then update_contact). Custom fields must exist. For many, bulk_create_contacts.',
  toolset: 'contacts',
  permissions: ['contacts:write'],
  input: CreateContactSchema,
  output: ContactResponse,
  annotations: WRITE,
  nextSteps: { NOT_FOUND: ['A group or custom field named in the request is not in this account: list_groups and list_custom_fields show their ids.', 'A group or custom field named in the request is not in this account: use ids exactly as the account lists them.'] },
  uses: ['contacts'],
  run: async ({ contacts, principal }, input) => ok(await contacts.create(principal.accountId, input, actorOf(principal))),
});

export const updateContact = defineTool({
  name: 'update_contact',
  title: 'Update a contact',
  description: 'Changes only the fields given; groups replaces the set (add_contacts_to_group adds). disabled:true cancels scheduled messages: confirm with the user first.',
  toolset: 'contacts',
  permissions: ['contacts:write'],
  // The service checks the whole patch with UpdateContactSchema again, including "at least one field".
  input: z.strictObject({ id: idArg('contact', 'ct'), ...UpdateContactSchema.shape }),
  output: ContactResponse,
  annotations: WRITE_IDEMPOTENT,
  nextSteps: { NOT_FOUND: ['The contact, a group or a custom field named in the request is not in this account: list_contacts, list_groups and list_custom_fields show their ids.', 'The contact, a group or a custom field named in the request is not in this account: use ids exactly as the account lists them.'] },
  uses: ['contacts'],
  run: async ({ contacts, principal }, { id, ...patch }) => ok(await contacts.update(principal.accountId, id, patch, actorOf(principal))),
});

export const deleteContact = defineTool({
  name: 'delete_contact',
  title: 'Delete a contact',
  description: 'Deletes a contact with its field values and scheduled messages; cannot be undone: confirm with the user. To keep it, bulk_disable_contacts.',
  toolset: 'contacts',
  permissions: ['contacts:write'],
  input: z.strictObject({ id: idArg('contact', 'ct') }),
  output: dataResponseSchema(z.object({ id: z.string(), deleted: z.literal(true), cancelledMessages: z.number().int() })),
  annotations: DELETE,
  uses: ['contacts'],
  run: async ({ contacts, principal }, input) => ok(await contacts.delete(principal.accountId, input.id)),
});

export const bulkCreateContacts = defineTool({
  name: 'bulk_create_contacts',
  title: 'Create or update many contacts',
  description: `Creates up to ${BULK_CONTACTS_MAX} contacts per call; a bad row fails alone (errors, by index). upsert:true updates existing phones, else they are skipped.`,
  toolset: 'contacts',
  permissions: ['contacts:write'],
  input: BulkContactsSchema,
  output: BulkResultSchema,
  annotations: WRITE,
  nextSteps: { NOT_FOUND: ['A group named in groups is not in this account (nothing was saved): list_groups shows the group ids.', 'A group named in groups is not in this account (nothing was saved): use group ids exactly as the account lists them.'] },
  uses: ['contacts'],
  run: ({ contacts, principal }, input) => contacts.bulkUpsert(principal.accountId, input, actorOf(principal)),
});

export const bulkDisableContacts = defineTool({
  name: 'bulk_disable_contacts',
  title: 'Disable contacts',
  description: `Disables up to ${BULK_STATUS_MAX_IDS.toLocaleString('en-US')} contacts: no messages, scheduled ones cancelled for good; confirm with the user. Undo: bulk_enable_contacts.`,
  toolset: 'contacts',
  permissions: ['contacts:write'],
  input: BulkDisableSchema,
  output: BulkDisableResultSchema,
  annotations: DELETE,
  errors: ['NO_VALID_CONTACTS'],
  uses: ['contacts'],
  run: ({ contacts, principal }, input) => contacts.bulkDisable(principal.accountId, input, actorOf(principal)),
});

export const bulkEnableContacts = defineTool({
  name: 'bulk_enable_contacts',
  title: 'Enable contacts',
  description: `Enables up to ${BULK_STATUS_MAX_IDS.toLocaleString('en-US')} disabled contacts so they receive messages again; cancelled messages are not restored.`,
  toolset: 'contacts',
  permissions: ['contacts:write'],
  input: BulkEnableSchema,
  output: BulkEnableResultSchema,
  annotations: WRITE_IDEMPOTENT,
  errors: ['NO_VALID_CONTACTS'],
  uses: ['contacts'],
  run: ({ contacts, principal }, input) => contacts.bulkEnable(principal.accountId, input, actorOf(principal)),
});

export const contactsTools = [
  listContacts,
  countContacts,
  getContact,
  createContact,
  updateContact,
  deleteContact,
  bulkCreateContacts,
  bulkDisableContacts,
  bulkEnableContacts,
];
