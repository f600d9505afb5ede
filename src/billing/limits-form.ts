import type { Request } from 'express';
import { field } from '../platform/http/form-fields.js';
import { parseLimitInput, type LimitsChange } from './budgets.js';

/**
 * The limits fields of a console form (the API keys and the connected apps pages): empty is no limit. Throws
 * VALIDATION_ERROR naming the field.
 */
export function limitsOfForm(req: Request): LimitsChange {
  return { dailyCredits: parseLimitInput(field(req, 'dailyCredits'), 'dailyCredits') ?? null, maxRecipients: parseLimitInput(field(req, 'maxRecipients'), 'maxRecipients') ?? null };
}
