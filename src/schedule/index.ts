export * from './resolve.js';
export * from './timezones.js';
export * from './quiet-hours.js';
