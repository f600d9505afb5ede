import * as z from 'zod/mini';
import type { Content, MessageType } from '../../../content/index.js';
import { contentItems } from '../../../content/walk.js';
import type { PreviewToolOutput } from '../../../../tools/preview-display.js';

/**
 * The part of an rcs_preview / sms_preview result the in-chat preview reads. Its own small schema,
 * not PreviewToolOutputSchema, so the view's bundle does not carry the content schemas; the type
 * check below keeps it a subset of what the tools return. zod/mini, not zod: its functions
 * tree-shake, so the view bundles the few checks it uses (~25 KB) instead of all of zod
 * (~190 KB with every locale) — the ui:// resource must stay under 150 KB (issue #30).
 */
const ViewResultSchema = z.object({
  share_url: z.string(),
  approval_required: z.boolean(),
  status: z.enum(['pending', 'approved', 'rejected', 'sending', 'sent']),
  expires_at: z.string(),
  kind: z.enum(['rcs', 'rcs_batch', 'sms']),
  recipients: z.object({
    accepted: z.number(),
    duplicates: z.number(),
    rejected: z.array(z.object({ phoneNumber: z.string(), reason: z.string() })),
    // The first refused numbers only: the count is rejectedCount (absent from results of before issue #42).
    rejectedCount: z.optional(z.number()),
  }),
  creditsEstimated: z.number(),
  smsSegments: z.optional(z.number()),
  smsEncoding: z.optional(z.string()),
  samples: z.array(z.object({ phoneNumber: z.string(), text: z.string(), fallbackText: z.nullable(z.string()) })),
  schedule: z.optional(z.object({ localScheduleTime: z.string(), effectiveTimezone: z.string() })),
  warnings: z.array(z.object({ path: z.string(), code: z.string(), message: z.string() })),
  mergeValues: z.optional(
    z.object({
      recipients: z.number(),
      fields: z.array(
        z.object({
          name: z.string(),
          distinct: z.number(),
          flaggedValues: z.number(),
          values: z.array(z.object({ value: z.string(), recipients: z.number(), risks: z.array(z.string()) })),
          more: z.number(),
        }),
      ),
    }),
  ),
  payload: z.record(z.string(), z.unknown()),
  display: z.optional(
    z.object({
      senderName: z.string(),
      fallbackSenderName: z.nullable(z.string()),
      messageType: z.nullable(z.string()),
      content: z.nullable(z.record(z.string(), z.unknown())),
    }),
  ),
});
export type ViewResult = z.infer<typeof ViewResultSchema>;
// Compile-time: every tool result is a valid view input.
const _subset = (x: PreviewToolOutput): ViewResult => x;
void _subset;

/** What the view draws: a preview, or why there is none. */
export type ViewState = { kind: 'waiting' } | { kind: 'preview'; result: ViewResult } | { kind: 'error'; message: string };

/** A tool result as the host hands it over (ui/notifications/tool-result: a CallToolResult). */
export interface ToolResultLike {
  isError?: boolean | undefined;
  structuredContent?: unknown;
  content?: readonly unknown[] | undefined;
}

function textOf(result: ToolResultLike): string {
  return (result.content ?? [])
    .map((b) => (typeof b === 'object' && b !== null && (b as { type?: unknown }).type === 'text' ? str((b as { text?: unknown }).text) : ''))
    .filter(Boolean)
    .join('\n');
}

/**
 * The view's state from a tool result: structuredContent first, else the JSON of the text block
 * (hosts that pass only content). A tool error shows its message; anything else that is not a
 * preview says so instead of drawing a half-empty phone.
 */
export function viewStateOf(result: ToolResultLike): ViewState {
  const text = textOf(result);
  if (result.isError) {
    let message = text;
    try {
      const parsed = JSON.parse(text) as { error?: { message?: unknown }; message?: unknown };
      message = str(parsed.error?.message ?? parsed.message) || text;
    } catch {
      // Plain text error: shown as it is.
    }
    return { kind: 'error', message: message || 'The preview was not created.' };
  }
  let data: unknown = result.structuredContent;
  if (data === undefined) {
    try {
      data = JSON.parse(text);
    } catch {
      data = undefined;
    }
  }
  const parsed = ViewResultSchema.safeParse(data);
  return parsed.success ? { kind: 'preview', result: parsed.data } : { kind: 'error', message: 'This result is not a message preview this view can show.' };
}

/** The previewed message as the mockup takes it: the first recipient's merged message and the payload as written. */
export function mockupInput(r: ViewResult) {
  const p = r.payload;
  const first = r.samples[0];
  const fallback = p.smsFallback as { message?: unknown } | undefined;
  const rcs = r.kind === 'sms' || typeof p.messageType !== 'string' || typeof p.content !== 'object' || p.content === null
    ? null
    : { messageType: p.messageType as MessageType, content: p.content as Content, fallback: typeof fallback?.message === 'string' ? fallback.message : null };
  return {
    senderName: r.display?.senderName ?? str(p.sendernameId),
    fallbackSenderName: r.display?.fallbackSenderName ?? null,
    rcs,
    sms: r.kind === 'sms' ? { text: str(p.message) } : null,
    sample: first
      ? {
          text: first.text,
          fallbackText: first.fallbackText,
          messageType: (r.display?.messageType ?? null) as MessageType | null,
          content: (r.display?.content ?? null) as Content | null,
        }
      : undefined,
  };
}

/** JSON paths of every media URL in a message: the in-chat preview loads none of them (its CSP allows no origin). */
export function mediaPaths(content: Content | null | undefined): { path: string; host: string }[] {
  if (!content) return [];
  const out: { path: string; host: string }[] = [];
  for (const item of contentItems(content)) {
    if (item.kind !== 'media') continue;
    let host = 'an invalid address';
    try {
      host = new URL(item.value).host;
    } catch {
      // Shown as invalid.
    }
    out.push({ path: item.path, host });
  }
  return out;
}

/** A string value as is; anything else as the empty string (never "[object Object]"). */
function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
