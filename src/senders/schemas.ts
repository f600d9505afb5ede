import { z } from 'zod';

export const SenderTypeSchema = z.enum(['SMS', 'RCS']);
export const SenderStatusSchema = z.enum(['APPROVED', 'PENDING', 'REJECTED', 'DRAFT']);

/** Spec §2.6. */
export const SendernameSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: SenderTypeSchema,
  status: SenderStatusSchema,
  isDefault: z.boolean(),
  isTest: z.boolean(),
  supportsConversationBilling: z.boolean(),
  rejectionReason: z.string().optional(),
  testPhones: z.array(z.string()).optional(),
  stopKeyword: z.string().describe('Inbound keyword that opts a recipient out (besides STOP)'),
  createdAt: z.string(),
});
export type Sendername = z.infer<typeof SendernameSchema>;
export type SenderType = z.infer<typeof SenderTypeSchema>;
export type SenderStatus = z.infer<typeof SenderStatusSchema>;

export const CreateSenderSchema = z.object({
  name: z.string().trim().min(1).max(100),
  type: SenderTypeSchema,
  status: SenderStatusSchema.default('PENDING'),
  isDefault: z.boolean().default(false),
  isTest: z.boolean().default(false),
  supportsConversationBilling: z.boolean().default(false),
  testPhones: z.array(z.string().regex(/^\+?\d{6,20}$/)).max(100).default([]),
  stopKeyword: z.string().trim().min(1).max(30).regex(/^[A-Za-z0-9]+$/).default('STOP'),
});
export type CreateSenderInput = z.input<typeof CreateSenderSchema>;
