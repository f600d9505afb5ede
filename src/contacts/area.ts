import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/db/database.js';
import type { ConsentRecorder } from '../suppression/schemas.js';
import { ContactConsent, type ContactConsentDeps } from './consent.js';
import { ContactDirectory } from './directory.js';
import { ContactsService, type ContactsDeps } from './service.js';

export interface ContactsAreaDeps {
  db: Db;
  clock: Clock;
  accounts: ContactsDeps['accounts'];
  /** Custom field values (the fields area owns their tables). */
  fields: ContactsDeps['fields'];
  /** Group memberships (the groups area owns their tables). */
  groups: ContactsDeps['groups'];
  /** What messaging does when contacts are deleted or disabled. */
  lifecycle: ContactsDeps['lifecycle'];
  /** The consent record (the suppression area): written by consent changes, read for a contact's standing. */
  consent: ContactsDeps['consent'] & ContactConsentDeps['consent'] & Pick<ConsentRecorder, 'optedOut'>;
}

/** What the contacts area offers: the address book, a contact's consent standing, and the recipients' directory for sends. */
export interface ContactsArea {
  contacts: ContactsService;
  contactConsent: ContactConsent;
  directory: ContactDirectory;
}

/** Builds the contacts area (src/context.ts calls one such factory per area). */
export function contactsArea(d: ContactsAreaDeps): ContactsArea {
  const { db, clock } = d;
  return {
    contacts: new ContactsService({ db, clock, accounts: d.accounts, fields: d.fields, groups: d.groups, lifecycle: d.lifecycle, consent: d.consent }),
    contactConsent: new ContactConsent({ db, consent: d.consent }),
    directory: new ContactDirectory({ clock }),
  };
}
