import fs from 'node:fs';
import path from 'node:path';
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { SandboxService } from './service.js';
import { AppError } from '../platform/errors.js';
import { defineRoute, reply, type RouteSpec } from '../platform/http/route.js';
import { ErrorResponseSchema } from '../platform/error-fields.js';
import { SAMPLE_CONTENT_TYPES, SAMPLE_FILES, SAMPLES_DIR, SamplesResponseSchema } from './samples.js';
import {
  SandboxInvalidResponseSchema,
  SandboxPreviewResponseSchema,
  SandboxRequestSchema,
  SandboxStoredPreviewSchema,
  SandboxValidateResponseSchema,
  documentedOnly,
} from './schemas.js';

const TAGS = ['Sandbox'];
const RequestBody = documentedOnly(SandboxRequestSchema);
const COMMON = {
  400: { description: 'messageType or content missing, unknown messageType, content not an object, or an unknown field' },
  413: { description: 'content is larger than 256,000 bytes as JSON' },
  429: { description: 'SANDBOX_RATE_LIMITED: 20 requests per minute or 100 per day per client address; see Retry-After' },
};

/**
 * The four public sandbox endpoints of §4.2 under {base_url}/sandbox, plus the sample files. No
 * credentials; every endpoint call counts against the per-client rate limit (sample file
 * downloads do not: a carousel page loads several).
 */
export function sandboxRoutes({ sandbox }: { sandbox: SandboxService }): RouteSpec[] {
  const admit = (req: Request) => sandbox.admit(req.ip ?? req.socket.remoteAddress);
  return [
    defineRoute({
      method: 'post',
      path: '/sandbox/validate',
      operationId: 'validateSandboxPayload',
      summary: 'Validate a message body without an account',
      description:
        'Runs the same validator as /send. 200 whenever the envelope is sound (messageType and content present); read valid, errors and warnings. Send-only fields are accepted, ignored and echoed in sandbox.ignored_fields.',
      tags: TAGS,
      auth: 'public',
      body: RequestBody,
      responses: { 200: { description: 'Validation result', schema: SandboxValidateResponseSchema }, ...COMMON },
      handler: async ({ req }) => {
        await admit(req);
        return sandbox.validate(req.body);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/sandbox/preview',
      operationId: 'createSandboxPreview',
      summary: 'Store an anonymous 24-hour preview with a share link',
      description:
        'Same body as /sandbox/validate. Invalid content is a 400 in the /send error shape with the validation result beside it. Identical input returns the same link until it expires. Only media from /sandbox/samples is rendered; other HTTPS media URLs are replaced by a placeholder and listed in sandbox.media with their host.',
      tags: TAGS,
      auth: 'public',
      body: RequestBody,
      responses: {
        200: { description: 'Stored preview', schema: SandboxPreviewResponseSchema },
        ...COMMON,
        // Invalid content answers the validation result beside the error; a broken envelope or body the plain error shape.
        400: { description: 'Invalid content (or envelope)', schema: z.union([SandboxInvalidResponseSchema, ErrorResponseSchema]) },
      },
      handler: async ({ req }) => {
        await admit(req);
        const outcome = await sandbox.preview(req.body);
        return reply(outcome.status, outcome.body);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/sandbox/samples',
      operationId: 'listSandboxSamples',
      summary: 'Sample images, one video and one PDF the sandbox renders, with a usage hint per message type',
      tags: TAGS,
      auth: 'public',
      responses: { 200: { description: 'Samples and usage', schema: SamplesResponseSchema }, 429: COMMON[429] },
      handler: async ({ req }) => {
        await admit(req);
        return sandbox.samples();
      },
    }),
    defineRoute({
      method: 'get',
      path: '/sandbox/samples/:file',
      operationId: 'getSandboxSample',
      summary: 'One sample file (not rate limited)',
      tags: TAGS,
      auth: 'public',
      params: z.object({ file: z.string() }),
      responses: { 200: { description: 'The file', mediaTypes: [...new Set(Object.values(SAMPLE_CONTENT_TYPES))] }, 404: { description: 'No such sample' } },
      handler: ({ params, res }) => sendSample(res, params.file),
    }),
    defineRoute({
      method: 'get',
      path: '/sandbox/preview/:slug',
      operationId: 'getSandboxPreview',
      summary: 'A stored sandbox preview: rendered content, warnings, expiry',
      description: 'slug is the last path segment of share_url. Placeholders are filled with sample values; foreign media URLs are never returned, only their host (sandbox.media).',
      tags: TAGS,
      auth: 'public',
      params: z.object({ slug: z.string() }),
      responses: {
        200: { description: 'The preview', schema: SandboxStoredPreviewSchema },
        404: { description: 'Unknown or expired' },
        429: COMMON[429],
      },
      handler: async ({ req, params }) => {
        await admit(req);
        return sandbox.getPreview(params.slug);
      },
    }),
  ];
}

function sendSample(res: Response, file: string): Promise<void> {
  if (!SAMPLE_FILES.has(file)) throw new AppError('NOT_FOUND', 'Sample file not found');
  const type = SAMPLE_CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream';
  const full = path.join(SAMPLES_DIR, file);
  if (!fs.existsSync(full)) throw new AppError('NOT_FOUND', 'Sample file not found');
  return new Promise((resolve, reject) => {
    res.setHeader('Content-Type', type);
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.sendFile(full, { dotfiles: 'deny' }, (err) => (err ? reject(err) : resolve()));
  });
}
