import { z } from 'zod';
import {
  ContentSchema,
  MESSAGE_TYPES,
  MessageTypeSchema,
  SMS_MAX_LENGTH,
  isMessageType,
  type Content,
  type Issue,
  type MessageType,
  type SmsFacts,
  type ValidationResult,
} from '../content/index.js';
import { AppError, type ErrorDetail } from '../platform/errors.js';
import { isRecord } from '../platform/guards.js';
import { SANDBOX_CONTENT_MAX_BYTES } from './limits.js';

/**
 * Fields of a /send or /send-batch body that the sandbox accepts and ignores (§4.2), echoed in
 * `sandbox.ignored_fields`. Their values are not inspected: nothing in the sandbox sends.
 */
export const SANDBOX_IGNORED_FIELDS = [
  'phoneNumber',
  'phoneNumbers',
  'sendernameId',
  'contactId',
  'campaignName',
  'scheduleAt',
  'timeZone',
  'skipDisabled',
  'skipContactCreation',
  'batchSize',
  'delayMs',
] as const;

const KNOWN_FIELDS: ReadonlySet<string> = new Set(['messageType', 'content', 'smsFallback', ...SANDBOX_IGNORED_FIELDS]);


/** The body as documented (OpenAPI); the handler itself checks it in the order §4.2 needs. */
export const SandboxRequestSchema = z
  .object({
    messageType: MessageTypeSchema,
    content: ContentSchema,
    smsFallback: z
      .object({
        message: z.string().max(SMS_MAX_LENGTH).describe(`SMS fallback text, at most ${SMS_MAX_LENGTH} characters.`),
        sendernameId: z.string().optional().describe('Accepted and ignored in the sandbox.'),
      })
      .optional(),
    ...Object.fromEntries(SANDBOX_IGNORED_FIELDS.map((f) => [f, z.unknown().optional().describe('Accepted and ignored; echoed in sandbox.ignored_fields.')])),
  })
  .describe(
    `A /send body. messageType and content are required; content may be at most ${SANDBOX_CONTENT_MAX_BYTES} bytes as JSON (413 beyond). Send-only fields are accepted and ignored; any other field is a 400.`,
  );

/**
 * A route body that accepts any JSON (so the handler decides between 400 and 413 itself) but is
 * documented in OpenAPI with the shape of `schema`.
 */
export function documentedOnly(schema: z.ZodType): z.ZodType {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return z.unknown().meta(json);
}

export interface SandboxInput {
  messageType: MessageType;
  content: Record<string, unknown>;
  /** The smsFallback object as sent (validated by validateContent), or undefined. */
  smsFallback: Record<string, unknown> | undefined;
  ignoredFields: string[];
}

/**
 * Checks the envelope of a sandbox body: 400 VALIDATION_ERROR when messageType or content is
 * missing, messageType is not one of the nine types, content or smsFallback is not an object, or
 * an unknown top-level field is present; 413 PAYLOAD_TOO_LARGE when JSON.stringify(content)
 * exceeds 256,000 bytes (UTF-8; `maxContentBytes: null` skips that, as /validate does). Content
 * rules are validateContent's business.
 */
export function parseSandboxInput(body: unknown, options: { maxContentBytes?: number | null } = {}): SandboxInput {
  const maxBytes = options.maxContentBytes === undefined ? SANDBOX_CONTENT_MAX_BYTES : options.maxContentBytes;
  if (!isRecord(body)) throw envelopeError([{ path: '', code: 'invalid_type', message: 'The body must be a JSON object with messageType and content.' }]);
  const missing: ErrorDetail[] = [];
  if (body.messageType === undefined || body.messageType === null) missing.push({ path: 'messageType', code: 'required', message: `messageType is required (one of ${MESSAGE_TYPES.join(', ')}).` });
  if (body.content === undefined || body.content === null) missing.push({ path: 'content', code: 'required', message: 'content is required.' });
  if (missing.length > 0) throw envelopeError(missing);

  if (maxBytes !== null) {
    const bytes = Buffer.byteLength(JSON.stringify(body.content), 'utf8');
    if (bytes > maxBytes) {
      throw new AppError('PAYLOAD_TOO_LARGE', `content is ${bytes} bytes as JSON; the sandbox accepts at most ${maxBytes}.`, {
        details: [{ path: 'content', code: 'too_large', message: `At most ${maxBytes} bytes of JSON.` }],
        extra: { maxBytes, actualBytes: bytes },
      });
    }
  }

  const problems: ErrorDetail[] = [];
  if (!isMessageType(body.messageType)) {
    problems.push({ path: 'messageType', code: 'invalid_enum', message: `messageType must be one of ${MESSAGE_TYPES.join(', ')}.` });
  }
  if (!isRecord(body.content)) problems.push({ path: 'content', code: 'invalid_type', message: 'content must be an object.' });
  if (body.smsFallback !== undefined && body.smsFallback !== null && !isRecord(body.smsFallback)) {
    problems.push({ path: 'smsFallback', code: 'invalid_type', message: 'smsFallback must be an object {message, sendernameId}.' });
  }
  for (const key of Object.keys(body)) {
    if (!KNOWN_FIELDS.has(key)) problems.push({ path: key, code: 'unknown_field', message: `Unknown field "${key}".` });
  }
  if (problems.length > 0) throw envelopeError(problems);

  const ignoredFields: string[] = SANDBOX_IGNORED_FIELDS.filter((f) => Object.hasOwn(body, f));
  const smsFallback = isRecord(body.smsFallback) ? body.smsFallback : undefined;
  if (smsFallback && Object.hasOwn(smsFallback, 'sendernameId')) ignoredFields.push('smsFallback.sendernameId');
  return { messageType: body.messageType as MessageType, content: body.content as Record<string, unknown>, smsFallback, ignoredFields };
}

function envelopeError(details: ErrorDetail[]): AppError {
  const first = details[0]!;
  return new AppError('VALIDATION_ERROR', `Request body is invalid: ${first.path ? `${first.path}: ` : ''}${first.message}`, { details });
}

// ---------------------------------------------------------------------------------------------
// Response shapes (documentation; the service builds them).

const Issue = z.object({ path: z.string(), code: z.string(), message: z.string() });
const SmsFacts = z
  .object({
    encoding: z.enum(['GSM-7', 'Unicode']),
    segments: z.number().int(),
    units: z.number().int(),
    unicodeCharacters: z.array(z.string()),
    perSegment: z.number().int().describe('Characters one segment holds at this length: 160/70 in one part, 153/67 once split.'),
    length: z.number().int().describe('Length in UTF-16 units (the 1530-character limit).'),
  })
  .describe('What the SMS fallback costs as written (placeholders unresolved).');

export const MediaReplacementSchema = z
  .object({
    path: z.string().describe('JSON path of the replaced URL, e.g. content.media.contentInfo.fileUrl.'),
    host: z.string().describe('Host of the replaced URL; the URL itself is never returned.'),
    replacedWith: z.string().describe('The placeholder image shown instead.'),
  })
  .describe('A foreign media URL the sandbox does not render.');

export const SandboxValidateResponseSchema = z.object({
  valid: z.boolean(),
  errors: z.array(Issue),
  warnings: z.array(Issue),
  sms: SmsFacts.optional(),
  sandbox: z.object({ ignored_fields: z.array(z.string()) }),
});

export const SandboxPreviewResponseSchema = z.object({
  valid: z.literal(true),
  errors: z.array(Issue),
  warnings: z.array(Issue),
  sms: SmsFacts.optional(),
  sandbox: z.object({ ignored_fields: z.array(z.string()), media: z.array(MediaReplacementSchema) }),
  preview: z.object({
    id: z.string().describe('sbx_… — cannot be used to send.'),
    share_url: z.string().describe('Phone-mockup page; its last path segment is the slug.'),
    expires_at: z.string().describe('ISO 8601 UTC; 24 hours after creation.'),
  }),
});

export const SandboxInvalidResponseSchema = z
  .object({
    success: z.literal(false),
    error: z.object({ code: z.literal('VALIDATION_ERROR'), message: z.string(), details: z.array(Issue) }),
    valid: z.literal(false),
    errors: z.array(Issue),
    warnings: z.array(Issue),
    sms: SmsFacts.optional(),
    sandbox: z.object({ ignored_fields: z.array(z.string()) }),
  })
  .describe('The /send error shape, with the full validation result beside it.');

export const SandboxStoredPreviewSchema = z.object({
  preview: z.object({ id: z.string(), share_url: z.string(), created_at: z.string(), expires_at: z.string() }),
  messageType: MessageTypeSchema,
  content: z.record(z.string(), z.unknown()).describe('Normalized content with sample merge values applied and foreign media replaced.'),
  smsFallback: z.object({ message: z.string() }).nullable().describe('The fallback text with sample merge values applied.'),
  sms: SmsFacts.optional(),
  warnings: z.array(Issue),
  sandbox: z.object({
    media: z.array(MediaReplacementSchema),
    merge_values: z.record(z.string(), z.string()).describe('Sample values used for merge placeholders.'),
  }),
});

// ---- response bodies and the share page's view (src/sandbox/sandbox-page.tsx) ---------------------------------------

export interface MediaReplacement {
  path: string;
  host: string;
  replacedWith: string;
}

export interface SandboxValidateBody extends ValidationResult {
  sandbox: { ignored_fields: string[] };
}

export interface SandboxPreviewBody extends ValidationResult {
  sandbox: { ignored_fields: string[]; media: MediaReplacement[] };
  preview: { id: string; share_url: string; expires_at: string };
}

export interface SandboxInvalidBody extends ValidationResult {
  success: false;
  error: { code: 'VALIDATION_ERROR'; message: string; details: Issue[] };
  sandbox: { ignored_fields: string[] };
}

export type SandboxPreviewOutcome = { status: 200; body: SandboxPreviewBody } | { status: 400; body: SandboxInvalidBody };

/** A stored preview as GET /sandbox/preview/{slug} and the share page see it. */
export interface StoredSandboxPreview {
  preview: { id: string; share_url: string; created_at: string; expires_at: string };
  messageType: MessageType;
  content: Content;
  smsFallback: { message: string } | null;
  sms?: SmsFacts;
  warnings: ValidationResult['warnings'];
  sandbox: { media: MediaReplacement[]; merge_values: Record<string, string> };
}
