import { z } from 'zod';
import { isValidIanaZone } from './timezone.js';

/** The company merge fields of spec §2.13, kept per account. */
export const COMPANY_FIELDS = [
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
export type CompanyField = (typeof COMPANY_FIELDS)[number];

export const CompanyProfileSchema = z
  .object(Object.fromEntries(COMPANY_FIELDS.map((f) => [f, z.string().max(500).optional()])) as Record<CompanyField, z.ZodOptional<z.ZodString>>)
  .strict();
export type CompanyProfile = z.infer<typeof CompanyProfileSchema>;

export const TimeZoneSchema = z.string().refine(isValidIanaZone, { message: 'must be an IANA time zone such as Europe/Berlin' });

export const AccountSettingsSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    timezone: TimeZoneSchema.optional(),
    approvalRequired: z.boolean().optional(),
    unsubscribeUrl: z.url({ protocol: /^https?$/ }).max(2000).nullable().optional(),
    companyProfile: CompanyProfileSchema.optional(),
  })
  .strict();
export type AccountSettingsInput = z.infer<typeof AccountSettingsSchema>;

export interface Account {
  id: string;
  name: string;
  timezone: string;
  approvalRequired: boolean;
  credits: number;
  unsubscribeUrl: string | null;
  companyProfile: CompanyProfile;
  active: boolean;
  createdAt: string;
}
