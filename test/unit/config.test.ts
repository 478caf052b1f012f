import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { metricsToken } from '../../src/auth/operator-token.ts';

describe('loadConfig', () => {
  it('gives the embedded defaults when nothing is set', () => {
    const config = loadConfig({ HOME: '/home/ada' });
    expect(config.api).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(config.postgres.url).toBeUndefined();
    expect(config.temporal).toMatchObject({ address: undefined, uiPort: 8233, taskQueue: 'neoflow' });
    expect(config.binDir).toBe('/home/ada/.cache/neoflow/bin');
  });

  it('follows XDG_CACHE_HOME for the Go binaries', () => {
    expect(loadConfig({ XDG_CACHE_HOME: '/cache' }).binDir).toBe('/cache/neoflow/bin');
  });

  it('names the variable of an invalid DATABASE_URL and hides its password', () => {
    const attempt = () => loadConfig({ DATABASE_URL: 'mysql://ada:s3cret@db/neoflow' });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/^DATABASE_URL is invalid .*must be a URL such as postgres:/);
    expect(attempt).not.toThrow(/s3cret/);
  });

  it('rejects a port that is not a port', () => {
    expect(() => loadConfig({ NEOFLOW_API_PORT: '80800' })).toThrow(/^NEOFLOW_API_PORT is invalid/);
  });

  it('rejects a TEMPORAL_ADDRESS that is a URL rather than host:port', () => {
    expect(() => loadConfig({ TEMPORAL_ADDRESS: 'http://temporal:7233' })).toThrow(/^TEMPORAL_ADDRESS/);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', NEO_RPC_URL: '' }).neo.rpcUrl).toBeUndefined();
  });
});

describe('loadConfig secrets', () => {
  const key = Buffer.alloc(32, 7).toString('base64');

  it('refuses to start in production without the master key, naming it', () => {
    expect(() => loadConfig({ NEOFLOW_ENV: 'production' })).toThrow(
      /^NEOFLOW_MASTER_KEY is invalid \(unset\): must be set in production/,
    );
  });

  it('decodes keys and never echoes a bad one', () => {
    expect(loadConfig({ NEOFLOW_MASTER_KEY: key }).secrets.masterKey).toEqual(Buffer.alloc(32, 7));
    const attempt = () => loadConfig({ NEOFLOW_PAYLOAD_KEY: 'c2hvcnQ=' });
    expect(attempt).toThrow(/^NEOFLOW_PAYLOAD_KEY is invalid \("\*\*\*"\): must be 32 random bytes/);
    expect(attempt).not.toThrow(/c2hvcnQ/);
  });

  it('reads the PKCS#11 module and its PIN as given, and wants the PIN whenever the module is set', () => {
    const pin = ' 12 34 ';
    const config = loadConfig({ NEOFLOW_PKCS11_MODULE: '/usr/lib/softhsm/libsofthsm2.so', NEOFLOW_PKCS11_PIN: pin });
    expect(config.worker.pkcs11).toEqual({ module: '/usr/lib/softhsm/libsofthsm2.so', pin });
    expect(loadConfig({}).worker.pkcs11).toEqual({ module: undefined, pin: undefined });
    expect(() => loadConfig({ NEOFLOW_PKCS11_MODULE: '/usr/lib/softhsm/libsofthsm2.so' })).toThrow(
      /^NEOFLOW_PKCS11_PIN is invalid \(unset\): must be set when NEOFLOW_PKCS11_MODULE is/,
    );
  });

  it('reads previous master keys for rotation', () => {
    expect(loadConfig({ NEOFLOW_PREVIOUS_MASTER_KEYS: `${key}, ${key}` }).secrets.previousMasterKeys).toHaveLength(2);
  });

  it('reads previous payload keys for a payload-key rotation, refusing one that is not a key', () => {
    const previous = loadConfig({ NEOFLOW_PREVIOUS_PAYLOAD_KEYS: `${key},${key}` }).secrets.previousPayloadKeys;
    expect(previous.map((buffer) => buffer.length)).toEqual([32, 32]);
    expect(() => loadConfig({ NEOFLOW_PREVIOUS_PAYLOAD_KEYS: 'short' })).toThrow(/NEOFLOW_PREVIOUS_PAYLOAD_KEYS/);
  });

  it('takes a metrics token of its own, never the operator token, and falls back to the operator token', () => {
    const operator = 'operator-token-0123456789abcdef';
    const scraper = 'metrics-token-0123456789abcdef';
    const both = loadConfig({ NEOFLOW_OPERATOR_TOKEN: operator, NEOFLOW_METRICS_TOKEN: scraper }).secrets;
    expect(metricsToken(both)).toBe(scraper);
    expect(metricsToken(loadConfig({ NEOFLOW_OPERATOR_TOKEN: operator }).secrets)).toBe(operator);
    expect(() => loadConfig({ NEOFLOW_OPERATOR_TOKEN: operator, NEOFLOW_METRICS_TOKEN: operator })).toThrow(
      /NEOFLOW_METRICS_TOKEN/,
    );
    expect(() => loadConfig({ NEOFLOW_METRICS_TOKEN: 'short' })).toThrow(/NEOFLOW_METRICS_TOKEN/);
  });

  it('parses the default rate limit', () => {
    expect(loadConfig({}).rateLimit).toEqual({ requests: 100, windowSeconds: 10 });
    expect(() => loadConfig({ NEOFLOW_RATE_LIMIT: '100 per minute' })).toThrow(/^NEOFLOW_RATE_LIMIT is invalid/);
  });

  it('gives per-account quotas, and refuses a default price interval under the shortest allowed', () => {
    expect(loadConfig({}).quotas).toEqual({
      automationsPerAccount: 1000,
      functionsPerAccount: 1000,
      versionsPerFunction: 100,
      shortestScheduleSeconds: 10,
      shortestPollSeconds: 10,
      queuedExecutionsPerAccount: 1000,
    });
    expect(() => loadConfig({ NEOFLOW_PRICE_POLL_SECONDS: '5' })).toThrow(
      /^NEOFLOW_PRICE_POLL_SECONDS is invalid .*at least NEOFLOW_SHORTEST_POLL_SECONDS \(10\)/,
    );
    expect(() => loadConfig({ NEOFLOW_SHORTEST_SCHEDULE_SECONDS: '61' })).toThrow(
      /^NEOFLOW_SHORTEST_SCHEDULE_SECONDS is invalid/,
    );
  });
});

describe('loadConfig codec origins', () => {
  it('allows the dev Web UI under both names by default, following its port', () => {
    expect(loadConfig({ NEOFLOW_TEMPORAL_UI_PORT: '9233' }).codec.allowedOrigins).toEqual([
      'http://127.0.0.1:9233',
      'http://localhost:9233',
    ]);
  });

  it('takes a list of origins and refuses anything with a path', () => {
    const origins = 'https://temporal.example.com, http://10.0.0.5:8080';
    expect(loadConfig({ NEOFLOW_CODEC_ALLOWED_ORIGINS: origins }).codec.allowedOrigins).toEqual([
      'https://temporal.example.com',
      'http://10.0.0.5:8080',
    ]);
    expect(() => loadConfig({ NEOFLOW_CODEC_ALLOWED_ORIGINS: 'https://temporal.example.com/ui' })).toThrow(
      /^NEOFLOW_CODEC_ALLOWED_ORIGINS is invalid/,
    );
  });
});
