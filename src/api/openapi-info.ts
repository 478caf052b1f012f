/**
 * What the OpenAPI document says of itself and of its groups of operations, kept apart from how
 * operations are built from the routes (openapi.ts): the prose a reader meets first.
 */

/** The groups of operations, in the order a user meets them: what they run, then the rest. */
export const apiTags = [
  {
    name: 'Functions',
    description:
      'Sandboxed JavaScript or TypeScript that runs on demand, on a schedule or on-chain events (through automations). ' +
      'A change of code or settings makes a new version; `name` is unique per account. ' +
      "A function's `context` and limits: docs/functions.md.",
  },
  {
    name: 'Executions',
    description:
      "Run a function and read its runs. A synchronous invoke answers the function's result, or 202 with the " +
      'execution to poll when the run outlives the wait; a failed run answers 500 `execution_error` with the ' +
      "function's own error in `details`.",
  },
  {
    name: 'Versions',
    description:
      "A function's immutable versions: what each ran, who made it, and the promote that makes an earlier one " +
      'current again (a rollback).',
  },
  {
    name: 'Storage',
    description:
      "A function's key-value store, as its runs see it through `context.storage`: read and change keys from " +
      'outside a run, with `ifVersion` for compare-and-set. A key in the path is percent-encoded.',
  },
  {
    name: 'Automations',
    description:
      'A trigger (a schedule, a contract event, a transaction, a price, a contract state) and an action (a ' +
      'function, a contract call, a webhook) run by Neoflow, with notifications and GAS budgets. Each firing ' +
      'is a run. Bodies and errors are bare, error codes upper-case. Every trigger and action: docs/api.md, ' +
      '"Automations".',
  },
  {
    name: 'Secrets',
    description:
      'Write-only values (API keys, tokens) that functions read by name: a value is never answered, logged or ' +
      'stored in clear text. Bodies and errors are bare, error codes upper-case.',
  },
  {
    name: 'Signers',
    description:
      "The account's Neo N3 keys, by where each lives: generated or imported (sealed by Neoflow), in AWS KMS, or " +
      'in a PKCS#11 token. Automations that send name theirs (`action.signer`, `default` when they name none). ' +
      'Key material is never answered; docs/security.md says what each custody type protects against.',
  },
  {
    name: 'Account',
    description:
      "The caller's account: its Neo N3 signer (fund its address with the GAS its transactions cost), the " +
      'default GAS budget of its automations, and what it spent.',
  },
  {
    name: 'Keys',
    description:
      "The account's API keys, managed by a key holding `keys:admin`: made with a role or scopes (never more than " +
      'the making key holds), answered once, listed by prefix, revoked at once. docs/api.md, "Keys and roles".',
  },
  {
    name: 'Console',
    description:
      'The web console at `/console`: a key exchanged for a short-lived session cookie that then acts with exactly ' +
      "the key's scopes. Changes made with the cookie need the header `X-Neoflow-Console: 1` and this origin. " +
      'docs/console.md.',
  },
  {
    name: 'Audit',
    description:
      'Who changed what in the account: every change, fire, retry, signed transaction and refused key, recorded in ' +
      'the transaction of what it records, read only, kept NEOFLOW_AUDIT_RETENTION_DAYS. docs/api.md, "Audit log".',
  },
  {
    name: 'Health',
    description: 'Readiness and liveness of an API process, for load balancers and container checks. No key needed.',
  },
  {
    name: 'Receipts',
    description:
      "The public keys that sign executions' receipts, which anyone, a Neo contract included, checks: docs/security.md, " +
      '"Receipts". No key needed.',
  },
  {
    name: 'OpenAPI',
    description: 'This document, built from the schemas each route validates its requests with. No key needed.',
  },
  {
    name: 'Codec',
    description:
      "For operators, not API users: Temporal's remote codec protocol, which opens the payloads Neoflow seals in " +
      "Temporal so that the Temporal Web UI and CLI can show them. API keys are not accepted: send the operator's " +
      'token (`Authorization: Bearer <NEOFLOW_OPERATOR_TOKEN>`) to `/v1/codec/decode` and `/v1/codec/encode`, or ' +
      "call the Web UI's capability URL (`/v1/codec/ui/{capability}/…`) with no header; anything else is 401. " +
      'docs/api.md, "Codec endpoint".',
  },
] as const;

/** The group an operation is listed under. */
export type ApiTag = (typeof apiTags)[number]['name'];

/** The document's `info`, at this package's version. */
export const apiInfo = (version: string) => ({
  title: 'Neoflow API',
  version,
  description: [
    'Automations, write-only secrets and sandboxed JavaScript functions for Neo N3, self-hosted.',
    '',
    'Authenticate with an API key (`neoflow keys create`) as `Authorization: Bearer nf_…`; `X-API-Key: nf_…` is ' +
      "accepted too (both sent must name the same key). A key without the route's scope answers 403.",
    '',
    'Every create and invoke takes an `Idempotency-Key` header: the same request again within 24 hours answers ' +
      'the first answer with `Idempotent-Replayed: true` and runs nothing. Each key has a rate limit ' +
      '(`RateLimit-*` headers; 429 with `Retry-After` over it).',
    '',
    'Two error shapes: the functions area (and health, account, signers) answers `{success: false, error: {code, ' +
      'message, details}}` with lower-case codes, automations and secrets `{error: {code, message, details}}` ' +
      'with upper-case codes; `details.field` names the field at fault. Every rule beyond this document is in ' +
      "docs/api.md of Neoflow's repository.",
  ].join('\n'),
  license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
});

/** What a path parameter names; `id` is the resource of the path's area. */
const pathParameters: Record<string, string> = {
  'functions/id': "The function's id, `func_…`.",
  'automations/id': "The automation's id, `auto_…`.",
  'secrets/id': "The secret's id, `sec_…`.",
  'signers/id': "The signer's id, `sgn_…`.",
  'keys/id': "The API key's id, `key_…` (not the key itself).",
  'hooks/path': "The hook's unguessable path, `hk_…`, from its automation's `trigger.url`.",
  executionId: "The execution's id, `exec_…`.",
  runId: "The run's id, `run_…`.",
  replayId: "The replay's id, `rpl_…`.",
  version: "The version's number, from 1.",
  key: 'The key, percent-encoded: `a%2Fb` for `a/b`.',
  capability:
    'HMAC-SHA256 of `neoflow codec endpoint for the Temporal Web UI` under the operator token, in unpadded ' +
    'base64url (docs/api.md, "Who may call it").',
};

/** The description of the path parameter `name` of `path` (`/v1/functions/:id/invoke`). */
export function pathParameterDescription(path: string, name: string): string {
  const description = pathParameters[`${path.split('/')[2]}/${name}`] ?? pathParameters[name];
  if (!description) throw new Error(`The path parameter ${name} of ${path} has no description.`);
  return description;
}

/** The longest host (with its port) taken from a request: a DNS name's 253 characters and a port. */
const hostLimit = 259;
/** A DNS name or IPv4 address, or an IPv6 address in brackets, and an optional port. */
const hostPattern = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

/**
 * The server entry of a document served to a request from `protocol://host`: absolute, so that a
 * client generated from it works without a base URL. The host is the request's (a proxy's when
 * the app trusts one), which any caller may set: anything but a plain host and port is refused
 * for the relative `/`, which still names this server to a browser.
 */
export function serverOf(protocol: string, host: string): { url: string } {
  if ((protocol !== 'http' && protocol !== 'https') || host.length > hostLimit || !hostPattern.test(host))
    return { url: '/' };
  return { url: `${protocol}://${host}` };
}
