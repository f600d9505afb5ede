export * from './limits.js';
export * from './normalize.js';
export * from './countries.js';
