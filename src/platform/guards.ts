/** A JSON object (not null, not an array): what a parsed body or payload field must be before its keys are read. */
export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A scalar read back from stored JSON as text: strings as they are, numbers and booleans printed, anything else `fallback`. */
export const textOf = (v: unknown, fallback = ''): string =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : fallback;
