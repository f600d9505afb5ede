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
  it('selects PostgreSQL with DATABASE_URL and keeps SQLite the default', () => {
    expect(loadConfig({}).postgres).toBeNull();
    const c = loadConfig({ DATABASE_URL: 'postgres://app:secret@db.example.com:5432/rcs', DATABASE_POOL_MAX: '25', DATABASE_SSL: 'verify-full', DATABASE_SSL_CA: 'ca.pem' });
    expect(c.postgres).toEqual({ url: 'postgres://app:secret@db.example.com:5432/rcs', poolMax: 25, ssl: 'verify-full', sslCaFile: path.resolve('ca.pem') });
    expect(loadConfig({ DATABASE_URL: 'postgresql://db/rcs' }).postgres).toMatchObject({ poolMax: 10, ssl: null, sslCaFile: null });
  });

  it.each([
    [{ DATABASE_URL: 'mysql://db/rcs' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'postgres://db/rcs', DATABASE_FILE: 'x.sqlite' }, 'DATABASE_FILE'],
    [{ DATABASE_URL: 'postgres://db/rcs', DATABASE_POOL_MAX: '0' }, 'DATABASE_POOL_MAX'],
    [{ DATABASE_URL: 'postgres://db/rcs', DATABASE_POOL_MAX: '1' }, 'DATABASE_POOL_MAX'],
    [{ DATABASE_URL: 'postgres://db/rcs', DATABASE_SSL: 'prefer' }, 'DATABASE_SSL'],
    [{ DATABASE_SSL: 'require' }, 'DATABASE_SSL'],
    [{ DATABASE_URL: 'postgres://db/rcs', DATABASE_SSL: 'require', DATABASE_SSL_CA: 'ca.pem' }, 'DATABASE_SSL_CA'],
  ])('rejects the PostgreSQL settings %j naming %s', (env, name) => {
    expect(() => loadConfig(env)).toThrow(new RegExp(`${name}=`));
  });

  it('never prints the password of a bad DATABASE_URL', () => {
    let message = '';
    try {
      loadConfig({ DATABASE_URL: 'mysql://app:hunter2@db/rcs' });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      message = String(err);
    }
    expect(message).toMatch(/DATABASE_URL=\(redacted\)/);
    expect(message).not.toContain('hunter2');
  });
});
