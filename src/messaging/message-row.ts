import type { MessagesTable } from './tables.js';

/**
 * The columns a one-off message row starts with — a received message, an automatic answer —
 * whatever else it holds: no job, no fallback, no error, nothing scheduled, sent or delivered yet,
 * not leased. Batch and API sends build their rows in one place of their own (send-service.ts).
 */
export const ONE_OFF_MESSAGE_DEFAULTS = {
  job_id: null,
  sms_fallback: null,
  fallback_text: null,
  fallback_used: 0,
  fallback_reason: null,
  error: null,
  scheduled_at: null,
  sent_at: null,
  delivered_at: null,
  read_at: null,
  failed_at: null,
  lease_until: null,
  claimed_by: null,
  attempts: 0,
  time_zone: null,
  preview_id: null,
  quiet_place: null,
  transactional: 0,
} as const satisfies Partial<MessagesTable>;
