import { describe, expect, it } from 'vitest';
import { FULL_LIST_MAX_BYTES, TOOLSET_MAX_BYTES, listBytes, measure } from '../../bench/mcp-list-size.js';
import { TOOLSETS } from '../../tools/types.js';
import { listedTools } from '../../src/mcp/catalog.js';

/**
 * The size of tools/list (issue #16, DESIGN §6). Byte counts are deterministic (no timing), so the
 * bars are asserted here and printed by bench/mcp-list-size.ts.
 */
describe('tools/list size', () => {
  it.each(TOOLSETS.map((s) => [s] as const))('toolset %s stays within 25 KB', (name) => {
    expect(listBytes(new Set([name]))).toBeLessThanOrEqual(TOOLSET_MAX_BYTES);
  });

  it('the full list stays within the ceiling it has reached (the issue asks 60 KB: not reached, see docs/decisions.md)', () => {
    const { full } = measure();
    // 217 KB before issue #16; the ceiling guards the gains until the last 16 KB are found.
    expect(full).toBeLessThanOrEqual(FULL_LIST_CEILING_BYTES);
    expect(FULL_LIST_MAX_BYTES).toBe(60 * 1024);
  });

  it('the send tools are small now that they do not repeat the content schema', () => {
    const listed = listedTools({ toolsets: null, readOnly: false });
    for (const name of ['rcs_send', 'rcs_send_batch', 'sms_send']) {
      const entry = listed.find((t) => t.name === name)!;
      expect(Buffer.byteLength(JSON.stringify(entry)), name).toBeLessThan(3 * 1024);
    }
    expect(measure().biggest[0]![0]).toBe('rcs_preview');
  });
});

const FULL_LIST_CEILING_BYTES = 78 * 1024;
