/** §2.13 contact fields: they resolve only when the message goes to an existing contact. */
export const CONTACT_MERGE_FIELDS = [
  'contact_first_name',
  'contact_last_name',
  'contact_phone',
  'contact_email',
] as const;

/** §2.13 company fields: account data, available with or without a contact. */
export const COMPANY_MERGE_FIELDS = [
  'company_name',
  'company_email',
  'company_phone',
  'company_website',
  'company_address',
  'company_city',
  'company_country',
  'contact_person',
  'business_first_name',
  'business_last_name',
  'gdpr_email',
  'gdpr_phone',
] as const;

export const TODAY_MERGE_FIELD = 'today';
export const UNSUBSCRIBE_MERGE_FIELD = 'unsubscribe_link';
/** The exact text an unsubscribeLink action's URL must carry (§2.3 rule 4). */
export const UNSUBSCRIBE_PLACEHOLDER = '{{unsubscribe_link}}';

export const BUILTIN_MERGE_FIELDS = [
  ...CONTACT_MERGE_FIELDS,
  ...COMPANY_MERGE_FIELDS,
  TODAY_MERGE_FIELD,
  UNSUBSCRIBE_MERGE_FIELD,
] as const;

export type ContactMergeField = (typeof CONTACT_MERGE_FIELDS)[number];
export type CompanyMergeField = (typeof COMPANY_MERGE_FIELDS)[number];
export type BuiltinMergeField = (typeof BUILTIN_MERGE_FIELDS)[number];

export const BUILTIN_MERGE_FIELD_SET: ReadonlySet<string> = new Set(BUILTIN_MERGE_FIELDS);
const CONTACT_SET: ReadonlySet<string> = new Set(CONTACT_MERGE_FIELDS);
const COMPANY_SET: ReadonlySet<string> = new Set(COMPANY_MERGE_FIELDS);

export const isBuiltinMergeField = (name: string): name is BuiltinMergeField => BUILTIN_MERGE_FIELD_SET.has(name);
export const isContactMergeField = (name: string): name is ContactMergeField => CONTACT_SET.has(name);
export const isCompanyMergeField = (name: string): name is CompanyMergeField => COMPANY_SET.has(name);
