/** Limits of the address book's contacts (spec §4.3, §8): GET /status, the tool guides and the schemas read them. */
export const BULK_CONTACTS_MAX = 1000;
export const CONTACT_LIST_LIMIT_MIN = 1;
export const CONTACT_LIST_LIMIT_MAX = 200;
export const CONTACT_NAME_MAX_LENGTH = 100;
export const BULK_DISABLE_REASON_MAX_LENGTH = 500;
