export * from './fields.js';
export { findPlaceholders, findMalformedPlaceholders, isUnsubscribePlaceholder } from './placeholders.js';
export { mergeText, mergeUrl, needsContact, resolveMergeField, type MergeChannel, type MergeContact, type MergeContext } from './merge-text.js';
