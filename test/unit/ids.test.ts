import { describe, expect, it } from 'vitest';
import { assertId, isId, newId, ulid } from '../../src/platform/ids.js';
import { AppError } from '../../src/platform/errors.js';

describe('ids', () => {
  it('mints prefixed ULIDs', () => {
    const id = newId('ct');
    expect(id).toMatch(/^ct_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(isId('ct', id)).toBe(true);
    expect(isId('grp', id)).toBe(false);
  });

  it('sorts in creation order even within one millisecond', () => {
    const ids = Array.from({ length: 2000 }, () => ulid(1_700_000_000_000));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('encodes the time in the first 10 characters and never goes backwards', () => {
    const a = ulid(Date.UTC(2029, 0, 1));
    const b = ulid(Date.UTC(2030, 0, 1));
    expect(b.slice(0, 10) > a.slice(0, 10)).toBe(true);
    // A clock that steps back still yields increasing ids (same time prefix, higher random part).
    const c = ulid(Date.UTC(2020, 0, 1));
    expect(c > b).toBe(true);
    expect(c.slice(0, 10)).toBe(b.slice(0, 10));
  });

  it.each(['', 'ct_', 'ct_123', 'CT_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'ct_01ARZ3NDEKTSV4RRFFQ69G5FA!', 'ct_01ARZ3NDEKTSV4RRFFQ69G5FAVX', 42, null])(
    'rejects malformed %s with INVALID_ID',
    (value) => {
      expect(isId('ct', value)).toBe(false);
      try {
        assertId('ct', value, 'contactId');
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(AppError);
        expect((err as AppError).code).toBe('INVALID_ID');
        expect((err as AppError).status).toBe(400);
      }
    },
  );
});
