import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('config', () => {
  it('applies the embedded defaults', () => {
    const c = loadConfig({});
    expect(c.port).toBe(3000);
    expect(c.host).toBe('127.0.0.1');
    expect(c.dataDir).toBe(path.resolve('./data'));
    expect(c.databaseFile).toBe(path.resolve('./data/rcs.sqlite'));
    expect(c.carriers).toEqual({ rcs: 'simulated', sms: 'simulated' });
    expect(c.publicUrl).toBe('http://127.0.0.1:3000');
    expect(c.secureCookies).toBe(false);
    expect(c.dangerouslyAllowPrivateNetworkTargets).toBe(false);
  });

  it('parses values and strips a trailing slash from PUBLIC_URL', () => {
    const c = loadConfig({ PORT: '8080', PUBLIC_URL: 'https://rcs.example.com/', DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS: 'true', CARRIER_SMS: 'smpp', SMPP_URL: 'smpp://app:pw@smsc.example.com:2775' });
    expect(c.port).toBe(8080);
    expect(c.publicUrl).toBe('https://rcs.example.com');
    expect(c.secureCookies).toBe(true);
    expect(c.dangerouslyAllowPrivateNetworkTargets).toBe(true);
    expect(c.carriers.sms).toBe('smpp');
  });

  it('treats empty strings as unset', () => {
    expect(loadConfig({ PORT: '' }).port).toBe(3000);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['LOG_LEVEL', 'loud'],
    ['CARRIER_RCS', 'pigeon'],
    ['PUBLIC_URL', 'ftp://x'],
    ['DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS', 'maybe'],
  ])('rejects %s=%s naming the variable', (name, value) => {
    try {
      loadConfig({ [name]: value });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toContain(name);
    }
  });
});
