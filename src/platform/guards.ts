/** A JSON object (not null, not an array): what a parsed body or payload field must be before its keys are read. */
export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
