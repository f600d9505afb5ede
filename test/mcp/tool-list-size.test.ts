import { describe, expect, it } from 'vitest';
import { FULL_LIST_MAX_BYTES, TOOLSET_MAX_BYTES, listBytes, measure } from '../../bench/mcp-list-size.js';
import { TOOLSETS } from '../../tools/types.js';
import { listedTools, listedToolsJson } from '../../src/mcp/catalog.js';

/**
 * The size of tools/list (issue #16, DESIGN §6). Byte counts are deterministic (no timing), so the
 * bars are asserted here and printed by bench/mcp-list-size.ts.
 */
describe('tools/list size', () => {
  it.each(TOOLSETS.map((s) => [s] as const))('toolset %s stays within 25 KB', (name) => {
    expect(listBytes(new Set([name]))).toBeLessThanOrEqual(TOOLSET_MAX_BYTES);
  });

  it('the full list stays within 60 KB', () => {
    expect(FULL_LIST_MAX_BYTES).toBe(60 * 1024);
    expect(TOOLSET_MAX_BYTES).toBe(25 * 1024);
    // 217 KB before issue #16, 76.5 KB after the first slice, 54 KB after the trim (bench/README.md).
    expect(measure().full).toBeLessThanOrEqual(FULL_LIST_MAX_BYTES);
  });

  it('the bench and this test measure what tools/list serves', () => {
    const full = measure().full;
    expect(full).toBe(Buffer.byteLength(`{"tools":${listedToolsJson({ toolsets: null, readOnly: false })}}`));
    expect(measure().pass).toBe(true);
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

