import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError, ERROR_STATUS, errorBody, httpStatusOf } from '../../src/platform/errors.js';
import { formatPath, parseOrThrow } from '../../src/platform/validation.js';

describe('errors', () => {
  it('maps every code to an HTTP status once', () => {
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      expect(httpStatusOf(code as keyof typeof ERROR_STATUS)).toBe(status);
      expect(status).toBeGreaterThanOrEqual(400);
    }
    expect(httpStatusOf('COUNTRY_NOT_SUPPORTED')).toBe(400);
    expect(httpStatusOf('SANDBOX_RATE_LIMITED')).toBe(429);
    expect(httpStatusOf('NOT_FOUND')).toBe(404);
    expect(httpStatusOf('INTERNAL')).toBe(500);
  });

  it('renders the one error body shape', () => {
    const e = new AppError('VALIDATION_ERROR', 'bad', { details: [{ path: 'a.b[0]', code: 'too_long', message: 'x' }] });
    expect(errorBody(e)).toEqual({ success: false, error: { code: 'VALIDATION_ERROR', message: 'bad', details: [{ path: 'a.b[0]', code: 'too_long', message: 'x' }] } });
    expect(errorBody(new AppError('NOT_FOUND', 'gone'))).toEqual({ success: false, error: { code: 'NOT_FOUND', message: 'gone' } });
  });

  it('formats JSON paths like content.suggestions[3].reply.text', () => {
    expect(formatPath(['content', 'suggestions', 3, 'reply', 'text'])).toBe('content.suggestions[3].reply.text');
    expect(formatPath([0, 'a'])).toBe('[0].a');
  });

  it('turns zod failures into VALIDATION_ERROR details with paths and codes', () => {
    const schema = z.object({ name: z.string().max(3), tags: z.array(z.number()) });
    try {
      parseOrThrow(schema, { name: 'abcd', tags: [1, 'x'] });
      expect.unreachable();
    } catch (err) {
      const e = err as AppError;
      expect(e.code).toBe('VALIDATION_ERROR');
      expect(e.details).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ path: 'name', code: 'too_long' }),
          expect.objectContaining({ path: 'tags[1]', code: 'invalid_type' }),
        ]),
      );
    }
    try {
      parseOrThrow(schema, {});
    } catch (err) {
      expect((err as AppError).details?.[0]).toMatchObject({ path: 'name', code: 'required' });
    }
  });
});
