export * from './limits.js';
export * from './analyze.js';
export { GSM_BASIC_CHARACTERS, GSM_EXTENSION_CHARACTERS } from './gsm-alphabet.js';
