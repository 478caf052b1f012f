import { executionStatus, runStatus } from '../shared/outcomes.ts';

/**
 * Requests as a user would send them, by operation (`METHOD /path` as the document spells it): the
 * reference shows them, and pre-fills "Try it out" with them, in place of a schema's placeholders
 * (`code: "string"`, which the API refuses). Each is valid against the body's schema
 * (test/unit/openapi-document.test.ts) and each create is accepted by the API
 * (test/integration/openapi.test.ts): the secret first, which the automations name.
 */

interface Example {
  summary: string;
  value: unknown;
}

const gas = '0xd2a4cff31913016155e38e474a2c06d08be276cf';
const treasury = 'Na4BNjSyrBDRGESC877KoKD45yg5GWUxuW';

const priceFunction = [
  'module.exports = async (context) => {',
  "  const currency = context.environment.CURRENCY ?? 'usd';",
  '  const response = await context.services.http.fetch(',
  '    `https://api.coingecko.com/api/v3/simple/price?ids=neo&vs_currencies=${currency}`,',
  "    { headers: { accept: 'application/json' }, timeout: 5000 },",
  '  );',
  '  if (!response.ok) throw new Error(`CoinGecko answered ${response.status}`);',
  '  const price = (await response.json()).neo[currency];',
  '  return { price, above: price > Number(context.params.threshold ?? 0) };',
  '};',
].join('\n');

/** `json/plain` `{"hello":"neo"}`: sealed by encode; passed through by decode, which opens sealed ones. */
const plainPayload: Example = {
  summary: 'A JSON payload, in protobuf JSON (base64)',
  value: { payloads: [{ metadata: { encoding: 'anNvbi9wbGFpbg==' }, data: 'eyJoZWxsbyI6Im5lbyJ9' }] },
};

/** The routes that take no body take `{}` too (docs/api.md). */
const noBody: Record<string, Example> = { empty: { summary: 'No body, or an empty object', value: {} } };

export const requestExamples: Record<string, Record<string, Example>> = {
  'POST /v1/functions/{id}/executions/{executionId}/retry': noBody,
  'POST /v1/functions/{id}/versions/{version}/promote': noBody,
  'POST /v1/automations/{id}/trigger': noBody,
  'POST /v1/automations/{id}/runs/{runId}/retry': noBody,
  'POST /v1/console/session': noBody,
  'POST /v1/automations/{id}/hook-token': noBody,
  'POST /v1/hooks/{path}': {
    payment: { summary: 'A payment system tells an amount', value: { amount: 7, orderId: 'ord_1042' } },
  },
  'POST /v1/automations/{id}/runs/{runId}/approve': noBody,
  'POST /v1/automations/{id}/runs/{runId}/reject': noBody,
  'POST /v1/functions': {
    price: {
      summary: "Read NEO's price from CoinGecko",
      value: {
        name: 'neo-price',
        runtime: 'node18',
        description: "Reads NEO's price and tells whether it is above `params.threshold`.",
        code: priceFunction,
        timeout: 10,
        environment: { CURRENCY: 'usd' },
        tags: ['prices'],
        allowedHosts: ['api.coingecko.com'],
      },
    },
  },
  'PUT /v1/functions/{id}': {
    timeout: { summary: 'Change the timeout and tags', value: { timeout: 20, tags: ['prices', 'alerts'] } },
  },
  'PUT /v1/functions/{id}/environment': {
    currency: { summary: 'Read prices in euros', value: { CURRENCY: 'eur' } },
  },
  'PUT /v1/functions/{id}/secrets': {
    grant: { summary: 'Grant one secret', value: { secrets: ['COINGECKO_API_KEY'] } },
  },
  'POST /v1/functions/{id}/invoke': {
    sync: { summary: 'Run and wait for the result', value: { params: { threshold: 12.5 } } },
    async: { summary: 'Start and poll the execution', value: { params: { threshold: 12.5 }, async: true } },
  },
  'PUT /v1/functions/{id}/storage/{key}': {
    write: { summary: 'Write a value', value: { value: { lastPrice: 12.41, notified: false } } },
    compareAndSet: {
      summary: 'Write only over version 3',
      value: { value: { lastPrice: 12.57, notified: true }, ifVersion: 3 },
    },
  },
  'POST /v1/automations': {
    transfers: {
      summary: 'Post large GAS transfers to a webhook',
      value: {
        name: 'Large GAS transfers to the treasury',
        trigger: {
          type: 'blockchain',
          scriptHash: gas,
          event: 'Transfer',
          filter: { to: treasury, amount: { gte: '10000000000' } },
        },
        action: {
          type: 'webhook',
          url: 'https://alerts.example.com/neoflow/transfers',
          headers: { 'X-Team': 'treasury' },
          signingSecret: 'WEBHOOK_SIGNING_KEY',
        },
      },
    },
    schedule: {
      summary: 'Call a webhook every weekday, alert Slack on failure',
      value: {
        name: 'Morning report',
        trigger: { type: 'schedule', cron: '0 9 * * MON-FRI', timezone: 'Europe/Berlin' },
        action: {
          type: 'webhook',
          url: 'https://reports.example.com/neoflow/morning',
          signingSecret: 'WEBHOOK_SIGNING_KEY',
        },
        notify: [
          {
            on: [runStatus.failure, 'recovery'],
            channel: { type: 'slack', url: 'https://hooks.slack.com/services/T000/B000/XXXXXXXX' },
            afterFailures: 2,
          },
        ],
      },
    },
  },
  'PATCH /v1/automations/{id}': {
    pause: { summary: 'Pause an automation', value: { status: 'inactive' } },
    resume: {
      summary: 'Resume a blockchain automation, replaying the blocks missed',
      value: { status: 'active', resumeFrom: 'lastProcessed' },
    },
  },
  'POST /v1/automations/{id}/test': {
    transaction: {
      summary: 'Match a transaction',
      value: { txHash: '0x5e2f3a9c1b7d4e8f6a0b2c4d6e8f0a1b3c5d7e9f1a2b4c6d8e0f2a4b6c8d0e2f' },
    },
    payload: { summary: 'Dry-run the action on a payload', value: { payload: { reason: 'manual check' } } },
  },
  'POST /v1/automations/{id}/replays': {
    dryRun: {
      summary: 'List the matches of 1,000 blocks',
      value: { fromBlock: 5200000, toBlock: 5200999, dryRun: true },
    },
  },
  'POST /v1/secrets': {
    webhook: {
      summary: 'Store a webhook signing key',
      value: {
        name: 'WEBHOOK_SIGNING_KEY',
        value: 'whsec_5f2b8c1e9a7d4f60b3e2a1c8d7f6e5a4',
        description: 'Signs the webhooks Neoflow sends to our alerts service.',
      },
    },
  },
  'PUT /v1/secrets/{id}': {
    rotate: { summary: 'Rotate the value', value: { value: 'whsec_9c4e7a2b5d8f1e3a6c9b2d5f8a1c4e7b' } },
  },
  'POST /v1/signers': {
    import: {
      summary: 'Bring the operator key your contracts already know',
      value: { name: 'operator', type: 'import', privateKey: 'KzwhAvGeTEr5anCaGgSEDR6SXLjyDdjQH65qHCfWiSJkEM3rBcgm' },
    },
    awsKms: {
      summary: 'Sign with an AWS KMS key',
      value: {
        name: 'keeper',
        type: 'aws-kms',
        keyId: 'alias/neo-keeper',
        region: 'eu-west-1',
        budget: { perDay: '5' },
      },
    },
    pkcs11: {
      summary: 'Sign with a key of an HSM',
      value: { name: 'oracle', type: 'pkcs11', tokenLabel: 'neoflow', keyLabel: 'oracle-p256' },
    },
    generated: { summary: 'A new key Neoflow keeps sealed', value: { name: 'hot-wallet', type: 'generated' } },
  },
  'PATCH /v1/account': {
    budget: { summary: 'Bound what each automation spends', value: { budget: { perDay: '5', total: '100' } } },
    none: { summary: 'Remove the default budget', value: { budget: null } },
  },
  'POST /v1/keys': {
    viewer: { summary: 'A read-only key for a colleague', value: { name: 'dashboard', role: 'viewer' } },
    scopes: {
      summary: 'A key that fires automations until the end of the year',
      value: {
        name: 'ci-fire',
        scopes: ['automations:read', 'automations:operate'],
        expiresAt: '2026-12-31T23:59:59Z',
      },
    },
  },
  'POST /v1/codec/encode': { payload: plainPayload },
  'POST /v1/codec/decode': { payload: plainPayload },
  'POST /v1/codec/ui/{capability}/encode': { payload: plainPayload },
  'POST /v1/codec/ui/{capability}/decode': { payload: plainPayload },
};

const priceFunctionId = 'func_Tp_pLQuSePcqxs8PFLAVARZr';

const automation = {
  id: 'auto_afMWbpMmIzEkAyJspLQfRrTz',
  name: 'NEO price on weekday mornings',
  network: 'mainnet',
  status: 'active',
  trigger: { type: 'schedule', cron: '0 9 * * MON-FRI', timezone: 'Europe/Berlin' },
  action: { type: 'function', functionId: priceFunctionId, parameters: { threshold: 12.5 } },
  notify: [],
  createdAt: '2026-11-02T10:31:12.097Z',
  updatedAt: '2026-11-02T10:31:12.097Z',
};

/**
 * Resources as the API answers them, by the name of their component schema: what a user reads
 * first in the reference. Each is valid against its schema (test/unit/openapi-document.test.ts).
 */
const schemaExamples: Record<string, unknown[]> = {
  Function: [
    {
      id: priceFunctionId,
      name: 'neo-price',
      description: "Reads NEO's price and tells whether it is above `params.threshold`.",
      runtime: 'node18',
      status: 'active',
      createdAt: '2026-11-26T09:12:41.993Z',
      updatedAt: '2026-11-26T09:12:41.993Z',
      tags: ['prices'],
      timeout: 10,
      environment: { CURRENCY: 'usd' },
      secrets: [],
      allowedHosts: ['api.coingecko.com'],
      version: 1,
      code: priceFunction,
      stats: {
        invocations: { total: 42, success: 41, failed: 1, last24Hours: 6 },
        averageExecutionTime: 183,
        lastInvocation: '2026-11-26T12:00:00.214Z',
      },
    },
  ],
  Execution: [
    {
      id: 'exec_ZAGfc2JOHIS6XIcuV8OuKic2',
      status: executionStatus.completed,
      startedAt: '2026-11-26T12:00:00.214Z',
      completedAt: '2026-11-26T12:00:00.402Z',
      duration: 188,
      functionId: priceFunctionId,
      functionVersion: 1,
      params: { threshold: 12.5 },
      result: { price: 12.41, above: false },
      logs: [],
      secretsRead: [],
      httpRequests: [{ method: 'GET', host: 'api.coingecko.com', status: 200, bytes: 27, durationMs: 141 }],
      trigger: { type: 'api' },
    },
  ],
  Automation: [automation],
  AutomationDetails: [
    {
      ...automation,
      executionStats: {
        lastExecution: '2026-11-26T08:00:00.031Z',
        lastStatus: runStatus.success,
        successCount: 17,
        failureCount: 1,
        nextExecution: '2026-11-27T08:00:00.000Z',
      },
    },
  ],
  AutomationRun: [
    {
      id: 'run_PzoPM79iwAS1V3YxRt8PIgGQ',
      network: 'mainnet',
      status: runStatus.success,
      startedAt: '2026-11-26T08:00:00.031Z',
      completedAt: '2026-11-26T08:00:00.262Z',
      duration: 231,
      trigger: { type: 'schedule', scheduledAt: '2026-11-26T08:00:00.000Z' },
      executionId: 'exec_uaFWAqo2DdGQZmFbDkTna8eT',
      error: null,
    },
  ],
  Secret: [
    {
      id: 'sec_t4T1HomEzc7p7fPKy-wA25gg',
      name: 'WEBHOOK_SIGNING_KEY',
      description: 'Signs the webhooks Neoflow sends to our alerts service.',
      createdAt: '2026-11-26T09:10:11.968Z',
      updatedAt: '2026-11-26T09:10:11.968Z',
    },
  ],
  Account: [
    {
      id: 'acct_KbyZb-DkmiDpQgGD1a3zp-50',
      name: 'treasury-ops',
      signer: {
        address: 'NLtWfJu3WDxHFPqZ4xgakTrFMVbm9MqSHb',
        scriptHash: '0xba6313ada259180bcc09272efd64e4fa6291b10a',
        gasBalance: '99.9632717',
      },
      budget: { perDay: '5' },
      spend: { today: '0.0367283', total: '1.2', reserved: '0.0122' },
      networks: [
        {
          name: 'mainnet',
          gasBalance: '99.9632717',
          spend: { today: '0.0367283', total: '1.2', reserved: '0.0122' },
        },
        { name: 'testnet', gasBalance: '50', spend: { today: '0', total: '0.4', reserved: '0' } },
      ],
      createdAt: '2026-11-02T10:30:51.869Z',
    },
  ],
};

/** The named schemas, each with its examples; a name no schema has is a mistake here. */
export function withSchemaExamples<Schema extends object>(schemas: Record<string, Schema>): Record<string, Schema> {
  const named = { ...schemas };
  for (const [name, examples] of Object.entries(schemaExamples)) {
    if (!named[name]) throw new Error(`An example is given for ${name}, which no schema is named.`);
    named[name] = { ...named[name], examples };
  }
  return named;
}
