export * from './vocabulary.js';
export * from './limits.js';
export * from './schemas.js';
export * from './issues.js';
export { checkMergedValue, validateContent, type MergedSlot, type ValidateContentOptions } from './validate.js';
export { normalizeContent } from './normalize.js';
export { contentSummary } from './summary.js';
export * from './characters.js';
