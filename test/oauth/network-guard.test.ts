import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { assertPublicHost, guardedLookup, isPrivateAddress } from '../../src/platform/net/network-guard.js';
import { guardedAgent } from '../../src/platform/net/outbound.js';
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

  // Issue #27: every IPv6 form that carries an IPv4 address. Refused outright: IPv4-compatible
  // (::/96), SIIT (::ffff:0:0:0/96), local-use NAT64 (64:ff9b:1::/48), 6to4, Teredo, ISATAP
  // interface ids. Checked by their IPv4 address: IPv4-mapped (::ffff:0:0/96) and the well-known
  // NAT64 prefix (64:ff9b::/96).
  it.each([
    // IPv4-compatible ::/96 in every spelling (WHATWG URL turns [::127.0.0.1] into [::7f00:1])
    '::7f00:1', '::127.0.0.1', '::a00:1', '::a9fe:a9fe', '::808:808', '::8.8.8.8', '::2', '0:0:0:0:0:0:7f00:1',
    '0000:0000:0000:0000:0000:0000:127.0.0.1', '0000:0000:0000:0000:0000:0000:7f00:0001', '[::7f00:1]', '::7F00:1',
    // IPv4-mapped ::ffff:0:0/96, hex, dotted, fully written, upper case: the IPv4 rules apply
    '::ffff:a9fe:a9fe', '0:0:0:0:0:ffff:7f00:1', '0000:0000:0000:0000:0000:FFFF:7F00:0001', '::FFFF:127.0.0.1',
    '0::ffff:c0a8:101', '::ffff:0.0.0.0', '::ffff:6440:1',
    // SIIT / IPv4-translated ::ffff:0:0:0/96
    '::ffff:0:7f00:1', '::ffff:0:127.0.0.1', '::ffff:0:808:808', '0:0:0:0:ffff:0:808:808',
    // NAT64: well-known prefix with a non-public IPv4; the local-use /48 whatever it holds
    '64:ff9b::a00:1', '64:ff9b::10.0.0.1', '64:ff9b::a9fe:a9fe', '64:ff9b::', '64:ff9b:1::808:808', '64:ff9b:1:ffff::1',
    // 6to4 2002::/16 (IPv4 in bits 16-48), public or not; Teredo 2001::/32
    '2002:7f00:1::1', '2002:a00:1::', '2002:808:808::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001::1',
    // ISATAP interface ids (00 or 02 in the u/g bits) behind any prefix
    '::5efe:7f00:1', '::5efe:127.0.0.1', 'fe80::5efe:a00:1', '2a00:1450:4001::5efe:a00:1', '2a00:1450:4001:0:200:5efe:808:808',
    '2a00:1450:4001:0:100:5efe:c0a8:1', '2a00:1450:4001:0:300:5efe:8.8.8.8',
    // other special IPv6 ranges: discard, dummy, documentation (RFC 9637), SRv6 SIDs, site-local, outside 2000::/3
    '100::1', '100:0:0:1::1', '3fff::1', '3fff:fff::1', '5f00::1', 'fec0::1', '4000::1', 'e000::1', '1::1',
    'fe80::1%eth0',
  ])('%s (an IPv6 form of a non-public or unverifiable address) is not public', (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });

  it.each(['::ffff:808:808', '0:0:0:0:0:ffff:808:808', '64:ff9b::808:808', '64:ff9b::8.8.8.8', '2001:4860:4860::8888', '2a03:2880:f10c:83:face:b00c:0:25de', '[2606:4700:4700::1111]'])(
    '%s is public',
    (ip) => {
      expect(isPrivateAddress(ip)).toBe(false);
    },
  );

  it.each([
    'https://[::127.0.0.1]/hook', 'https://[::ffff:127.0.0.1]/hook', 'https://[::ffff:7f00:1]/hook', 'https://[0:0:0:0:0:ffff:7f00:1]/hook',
    'https://[::ffff:0:127.0.0.1]/hook', 'https://[::5efe:127.0.0.1]/hook', 'https://[64:ff9b::169.254.169.254]/hook',
    'https://[2002:7f00:1::]/hook', 'https://[0000:0000:0000:0000:0000:0000:127.0.0.1]/hook', 'https://[::ffff:0a00:0001]/hook',
    'https://0x7f000001/hook', 'https://2130706433/hook', 'https://127.1/hook',
  ])('%s is refused after the URL parser normalised it', async (u) => {
    await expect(assertPublicHost(new URL(u).hostname, false)).rejects.toThrow(/private, loopback/);
  });

  it('checks names after DNS resolution', async () => {
    await expect(assertPublicHost('localhost', false)).rejects.toThrow(/resolves to/);
    await expect(assertPublicHost('localhost', true)).resolves.toBeUndefined();
  });
});

describe('names whose DNS answers embed a private IPv4 address', () => {
  // A name under the attacker's control may answer with any AAAA record: the check runs on the
  // answers, both before the request (assertPublicHost) and inside the connection (guardedLookup).
  const answers: Record<string, dns.LookupAddress[]> = {
    'compat.test': [{ address: '::7f00:1', family: 6 }],
    'mapped.test': [{ address: '::ffff:127.0.0.1', family: 6 }],
    'siit.test': [{ address: '::ffff:0:a00:1', family: 6 }],
    'nat64.test': [{ address: '64:ff9b::a9fe:a9fe', family: 6 }],
    'isatap.test': [{ address: '2a00:1450:4001::5efe:c0a8:1', family: 6 }],
    'mixed.test': [{ address: '8.8.8.8', family: 4 }, { address: '2002:a00:1::1', family: 6 }],
  };
  const realLookup = dns.lookup;
  const realPromiseLookup = dns.promises.lookup;
  function fakeDns(): void {
    vi.spyOn(dns.promises, 'lookup').mockImplementation((async (host: string, opts: unknown) =>
      answers[host] ?? realPromiseLookup(host, opts as dns.LookupAllOptions)) as typeof dns.promises.lookup);
    vi.spyOn(dns, 'lookup').mockImplementation(((host: string, opts: unknown, cb: (e: Error | null, a: dns.LookupAddress[]) => void) => {
      const a = answers[host];
      if (a) return process.nextTick(cb, null, a);
      return realLookup(host, opts as dns.LookupAllOptions, cb);
    }) as unknown as typeof dns.lookup);
  }
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.each(Object.keys(answers))('%s is refused before the request and at connect time', async (host) => {
    fakeDns();
    await expect(assertPublicHost(host, false)).rejects.toThrow(/private, loopback/);
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => guardedLookup(false)(host, { all: true }, (e) => resolve(e)));
    expect(err?.code).toBe('EBLOCKED');
  });

  it('a request through the guarded agent never reaches the address (and reaches it with the switch on)', async () => {
    fakeDns();
    answers['local.test'] = [{ address: '::ffff:127.0.0.1', family: 6 }];
    const hits: string[] = [];
    const server = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const { request } = await import('undici');
    try {
      const refused = request(`http://local.test:${port}/refused`, { dispatcher: await guardedAgent({ allowPrivateNetwork: false, timeoutMs: 2000 }) });
      await expect(refused).rejects.toMatchObject({ code: 'EBLOCKED' });
      expect(hits).toEqual([]);
      const allowed = await request(`http://local.test:${port}/allowed`, { dispatcher: await guardedAgent({ allowPrivateNetwork: true, timeoutMs: 2000 }) });
      expect(await allowed.body.text()).toBe('ok');
      expect(hits).toEqual(['/allowed']);
    } finally {
      server.close();
    }
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
