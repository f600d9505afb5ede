import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

function problems(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('carrier configuration', () => {
  it('keeps the simulated network as the default for both channels', () => {
    const c = loadConfig({});
    expect(c.carriers).toEqual({ rcs: 'simulated', sms: 'simulated' });
    expect(c.rbm).toBeNull();
    expect(c.smpp).toBeNull();
  });

  it('reads RBM settings, with Google as the default endpoint', () => {
    const c = loadConfig({ CARRIER_RCS: 'rbm', RBM_AGENT_ID: 'acme_agent', RBM_SERVICE_ACCOUNT_FILE: 'keys/sa.json', RBM_WEBHOOK_CLIENT_TOKEN: 'token-123456' });
    expect(c.rbm).toEqual({ agentId: 'acme_agent', serviceAccountFile: path.resolve('keys/sa.json'), endpoint: 'https://rcsbusinessmessaging.googleapis.com', webhookClientToken: 'token-123456' });
    const regional = loadConfig({ CARRIER_RCS: 'rbm', RBM_AGENT_ID: 'a', RBM_SERVICE_ACCOUNT_FILE: 'sa.json', RBM_WEBHOOK_CLIENT_TOKEN: 'token-123456', RBM_ENDPOINT: 'https://europe-rcsbusinessmessaging.googleapis.com/' });
    expect(regional.rbm?.endpoint).toBe('https://europe-rcsbusinessmessaging.googleapis.com');
    expect(regional.carriers.sms).toBe('simulated');
  });

  it('stops start-up naming every missing RBM setting', () => {
    const msg = problems({ CARRIER_RCS: 'rbm' });
    expect(msg).toContain('RBM_AGENT_ID');
    expect(msg).toContain('RBM_SERVICE_ACCOUNT_FILE');
    expect(msg).toContain('RBM_WEBHOOK_CLIENT_TOKEN');
  });

  it('reads SMPP settings and requires SMPP_URL, without printing its password', () => {
    const c = loadConfig({ CARRIER_SMS: 'smpp', SMPP_URL: 'smpp://app:pw@127.0.0.1:2775', SMPP_WINDOW: '5' });
    expect(c.smpp).toEqual({ url: 'smpp://app:pw@127.0.0.1:2775', window: 5, enquireLinkMs: 30_000, systemType: '', bindMode: 'transceiver' });
    expect(loadConfig({ CARRIER_SMS: 'smpp', SMPP_URL: 'smpp://app:pw@127.0.0.1:2775', SMPP_BIND_MODE: 'transmitter_receiver' }).smpp?.bindMode).toBe('transmitter_receiver');
    expect(problems({ CARRIER_SMS: 'smpp', SMPP_URL: 'smpp://app:pw@127.0.0.1:2775', SMPP_BIND_MODE: 'receiver' })).toContain('SMPP_BIND_MODE');
    expect(c.carriers.rcs).toBe('simulated');
    expect(problems({ CARRIER_SMS: 'smpp' })).toContain('SMPP_URL');
    const bad = problems({ CARRIER_SMS: 'smpp', SMPP_URL: 'smpp://127.0.0.1' });
    expect(bad).toContain('SMPP_URL');
    const secret = problems({ CARRIER_SMS: 'smpp', SMPP_URL: 'http://app:hunter2@x:1' });
    expect(secret).toContain('SMPP_URL');
    expect(secret).not.toContain('hunter2');
  });
});
