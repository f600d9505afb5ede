/** The punycode package (RFC 3492), its CommonJS entry: `import 'punycode'` would load Node's deprecated built-in instead. */
declare module 'punycode/punycode.js' {
  const punycode: { toUnicode(domain: string): string; toASCII(domain: string): string };
  export default punycode;
}
