import { describe, expect, it } from 'vitest';
import { assertPublicHost, isPrivateAddress } from '../../src/platform/net/network-guard.js';
import { redirectUriProblem } from '../../oauth/redirect-uris.js';
import { metadataDocumentUrlProblem } from '../../oauth/client-metadata-document.js';
import { mcpBearerChallenge } from '../../oauth/challenge.js';

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1', '10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
    '224.0.0.1', '255.255.255.255', '198.18.0.1', '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1',
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '64:ff9b::7f00:1', '2001:db8::1', 'not-an-ip',
  ])('%s is not public', (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8'])('%s is public', (ip) => {
    expect(isPrivateAddress(ip)).toBe(false);
  });

  it('checks names after DNS resolution', async () => {
    await expect(assertPublicHost('localhost', false)).rejects.toThrow(/resolves to/);
    await expect(assertPublicHost('localhost', true)).resolves.toBeUndefined();
  });
});

describe('redirect URI rules', () => {
  it.each([
    ['https://app.example/cb', null],
    ['http://127.0.0.1:8080/cb', null],
    ['http://localhost/cb', null],
    ['http://[::1]:9/cb', null],
    ['cursor://anysphere.cursor-retrieval/oauth/callback', null],
    ['com.example.app:/oauth2redirect', null],
    ['http://app.example/cb', 'must use https'],
    ['https://app.example/cb#x', 'fragment'],
    ['https://user:pw@app.example/cb', 'user info'],
    ['javascript:alert(1)', 'not allowed'],
    ['data:text/html,hi', 'not allowed'],
    ['https://a;b.example/cb', 'valid host'],
    ['/relative', 'absolute'],
  ])('%s', (uri, problem) => {
    const result = redirectUriProblem(uri, false);
    if (problem === null) expect(result).toBeNull();
    else expect(result).toContain(problem);
  });
});

describe('client ID metadata document URL rules', () => {
  it.each([
    ['https://app.example/oauth/client.json', null],
    ['https://app.example', 'path'],
    ['https://app.example/a/../client.json', '. or ..'],
    ['https://app.example/client.json#f', 'fragment'],
    ['http://app.example/client.json', 'https'],
    ['https://APP.example/client.json', 'normalised'],
  ])('%s', (url, problem) => {
    const result = metadataDocumentUrlProblem(url, false);
    if (problem === null) expect(result).toBeNull();
    else expect(result).toContain(problem);
  });
});

describe('WWW-Authenticate for /mcp', () => {
  it('names the path-inserted resource metadata and the scope; error only when asked', () => {
    expect(mcpBearerChallenge('https://rcs.example', { scope: ['contacts:read'] })).toBe(
      'Bearer resource_metadata="https://rcs.example/.well-known/oauth-protected-resource/mcp", scope="contacts:read"',
    );
    expect(mcpBearerChallenge('https://rcs.example', { error: 'insufficient_scope', scope: ['a', 'b'], description: 'needs "b"' })).toBe(
      'Bearer resource_metadata="https://rcs.example/.well-known/oauth-protected-resource/mcp", scope="a b", error="insufficient_scope", error_description="needs \'b\'"',
    );
  });
});
