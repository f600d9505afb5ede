import { z } from 'zod';
import { COMPANY_MERGE_FIELDS } from '../merge/fields.js';
import { isValidIanaZone } from './timezone.js';

/** The company merge fields of spec §2.13, kept per account (the list lives with the merge engine). */
export const COMPANY_FIELDS = COMPANY_MERGE_FIELDS;
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
