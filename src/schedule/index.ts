export * from './resolve.js';
export * from './timezones.js';
