import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

const base = { TEMPORAL_ADDRESS: 'my-ns.a1b2c.tmprl.cloud:7233', TEMPORAL_NAMESPACE: 'my-ns.a1b2c' };

describe("Temporal connection options, from Temporal's own variables", () => {
  it('connects in plain text when nothing asks for more (the dev server)', () => {
    expect(loadConfig({}).temporal.security).toEqual({});
    expect(loadConfig(base).temporal.security).toEqual({});
  });

  it('uses an API key over TLS (Temporal Cloud), and sends gRPC headers', () => {
    const security = loadConfig({ ...base, TEMPORAL_API_KEY: 'secret-key', TEMPORAL_GRPC_META_X_TENANT: 'neo' })
      .temporal.security;
    expect(security).toEqual({ apiKey: 'secret-key', tls: true, metadata: { 'x-tenant': 'neo' } });
  });

  it('reads mTLS certificates from files, with a server name and CA, and refuses a missing file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'neoflow-tls-'));
    try {
      await writeFile(join(dir, 'client.pem'), 'CERT');
      await writeFile(join(dir, 'client.key'), 'KEY');
      await writeFile(join(dir, 'ca.pem'), 'CA');
      const security = loadConfig({
        ...base,
        TEMPORAL_TLS: 'true',
        TEMPORAL_TLS_CLIENT_CERT_PATH: join(dir, 'client.pem'),
        TEMPORAL_TLS_CLIENT_KEY_PATH: join(dir, 'client.key'),
        TEMPORAL_TLS_SERVER_CA_CERT_PATH: join(dir, 'ca.pem'),
        TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
      }).temporal.security;
      expect(security.tls).toEqual({
        serverNameOverride: 'temporal.internal',
        serverRootCACertificate: new Uint8Array(Buffer.from('CA')),
        clientCertPair: { crt: new Uint8Array(Buffer.from('CERT')), key: new Uint8Array(Buffer.from('KEY')) },
      });
      expect(() =>
        loadConfig({ ...base, TEMPORAL_TLS: 'true', TEMPORAL_TLS_CLIENT_CERT_PATH: join(dir, 'missing.pem') }),
      ).toThrow(ConfigError);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("never reads a developer's own CLI profile unless TEMPORAL_CONFIG_FILE names one", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'neoflow-profile-'));
    try {
      const file = join(dir, 'temporal.toml');
      await writeFile(file, '[profile.default]\napi_key = "from-file"\n');
      expect(loadConfig({ ...base, HOME: dir, XDG_CONFIG_HOME: dir }).temporal.security).toEqual({});
      expect(loadConfig({ ...base, TEMPORAL_CONFIG_FILE: file }).temporal.security).toMatchObject({
        apiKey: 'from-file',
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
