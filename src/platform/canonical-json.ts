import { isRecord } from './guards.js';

/** JSON with object keys sorted at every level: equal payloads give equal strings. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/**
 * Paths where two payloads differ, e.g. `content.suggestions[1].reply.text`, `phoneNumbers`.
 * Arrays of scalars (recipient lists) are reported as a whole; at most `limit` paths.
 */
export function differingPaths(a: unknown, b: unknown, path = '', limit = 20, out: string[] = []): string[] {
  if (out.length >= limit) return out;
  if (canonicalJson(a) === canonicalJson(b)) return out;
  if (isRecord(a) && isRecord(b)) {
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      differingPaths(a[key], b[key], path ? `${path}.${key}` : key, limit, out);
    }
    return out;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.some((x) => x && typeof x === 'object')) {
    a.forEach((x, i) => differingPaths(x, b[i], `${path}[${i}]`, limit, out));
    return out;
  }
  out.push(path || '(payload)');
  return out;
}
