import { errorStatus, type ErrorCode } from '../errors.ts';
import { isProtected } from './auth.ts';
import { areaOf, type Area } from './areas.ts';
import type { DeclaredRoute } from './route-kit.ts';

type JsonSchema = Record<string, unknown>;

/** What each code means to a client: the description of its status in the document. */
const meanings: Record<ErrorCode, string> = {
  invalid_request: 'the request is invalid: the field at fault is in `details.field`',
  invalid_function_code: 'the code does not compile: `details` gives the line and column',
  invalid_cron: 'the cron expression is invalid (`details.field`)',
  invalid_script_hash: 'a contract hash is not a 0x-prefixed 40-digit hex (`details.field`)',
  interval_too_short: 'the schedule runs more often than allowed (`details.shortestSeconds`)',
  unauthorized: 'no valid API key (or operator token)',
  forbidden:
    'the key lacks the scope in `details.requiredScope`, would grant scopes it lacks (`details.missingScopes`), the origin is not allowed, or it created or last changed the automation whose run it would approve',
  not_found: 'no such resource in this account (a secret, a transaction, a block)',
  function_not_found: 'no such function in this account',
  execution_not_found: 'no such execution of this function',
  version_not_found: 'the function has no such version',
  automation_not_found: 'no such automation in this account',
  run_not_found: 'no such run of this automation',
  replay_not_found: 'no such replay of this automation',
  key_not_found: 'no such unrevoked key in this account',
  storage_key_not_found: "no such key in the function's storage",
  contract_not_found: 'no such contract deployed on this network (`details.field`)',
  method_not_allowed: 'the path does not take this method: `Allow` lists those it takes',
  conflict: 'a conflict: a name already used, a run or execution not retryable, or an `Idempotency-Key` reused',
  transaction_pending: "the run's transaction may still be included: retrying could send it twice",
  automation_limit_reached:
    'the account has as many automations, or of `details.triggerType`, as it may (`details.limit`)',
  function_limit_reached: 'the account has as many functions as it may (`details.limit`)',
  replay_in_progress: 'a replay of this automation is running (`details.replayId`)',
  replay_limit_reached: 'the account runs as many replays at once as it may (`details.limit`)',
  last_key_manager: "the account's last key that can manage keys, or its last `*` key: make another first",
  storage_quota_exceeded: "the function's storage is full",
  signer_in_use:
    'automations sign with the signer (`details.automations`): name another signer in them, or delete them, first',
  approval_not_pending: 'the run waits for no approval: it never asked, ended, was decided or its deadline passed',
  already_decided: 'this key already approved or rejected the run',
  receipt_unavailable:
    'the execution has no receipt: it is still running, ended before receipts, was lost, or the deployment signs none',
  payload_too_large: 'the body is over `details.limit` bytes',
  rate_limit_exceeded: 'over the rate limit: `Retry-After` says when to retry',
  execution_queue_full: 'the account has as many executions not yet ended as it may: `Retry-After` says when to retry',
  execution_error: 'the function failed: `details` holds its error and `executionId`',
  internal_error: 'an error on our side: quote `X-Request-Id`',
  service_unavailable: 'PostgreSQL or Temporal is unreachable for a moment: retry after `Retry-After` seconds',
  signer_unavailable:
    "the key's backend (AWS KMS, the PKCS#11 token) or a worker to reach it did not answer: retry later",
};

/**
 * The codes an operation can answer: those its route declares (`errors`, what its handler and
 * services throw) and those the kit knows from the declaration itself, as the middleware in front
 * of every route answers them (src/app/app.ts).
 */
function errorCodesOf({ path, spec }: DeclaredRoute): ErrorCode[] {
  const codes = new Set<ErrorCode>(spec.errors ?? []);
  // Any URL may be refused as not valid UTF-8 or holding NUL (src/api/storable-text.ts); any
  // request may carry a body, read and bounded before routing whether its route takes one or not
  // (src/api/json-body.ts); anything may fail on our side or meet a dependency down.
  codes.add('invalid_request').add('payload_too_large').add('internal_error').add('service_unavailable');
  if (isProtected(path)) codes.add('unauthorized').add('rate_limit_exceeded');
  if (spec.scope) codes.add('forbidden');
  if (spec.idempotency) codes.add('conflict');
  return [...codes].sort();
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The name of an area's error component: what every error of the area is, whatever its code. */
export const errorComponentOf = (area: Area) =>
  area === 'automations' || area === 'secrets' ? 'AutomationsError' : 'FunctionsError';

const wireCode = (area: Area, code: ErrorCode) =>
  errorComponentOf(area) === 'AutomationsError' ? code.toUpperCase() : code;

const allCodes = Object.keys(errorStatus) as ErrorCode[];

/** What codes put in `details` (grep `new AppError(`): typed, and open to what a function's error adds. */
const errorDetails: JsonSchema = {
  type: 'object',
  description:
    "What the code adds: the fields below when the code gives them; an `execution_error` adds the function's error.",
  properties: {
    field: { type: 'string', description: 'The request field at fault, as a dotted path (`trigger.scriptHash`).' },
    requiredScope: { type: 'string', description: 'The scope the key lacks (`forbidden`).' },
    limit: { type: 'integer', description: 'The limit reached: requests, bytes, automations, replays or executions.' },
    windowSeconds: { type: 'integer', description: 'The rate limit’s window (`rate_limit_exceeded`).' },
    retryAfter: { type: 'integer', description: 'Seconds to wait before retrying, as `Retry-After`.' },
    shortestSeconds: { type: 'integer', description: 'The shortest interval allowed (`interval_too_short`).' },
    idempotencyKey: { type: 'string', description: 'The `Idempotency-Key` in conflict.' },
    replayId: { type: ['string', 'null'], description: 'The replay running (`replay_in_progress`).' },
    executionId: { type: 'string', description: 'The execution that failed (`execution_error`).' },
    line: { type: 'integer', description: 'The line of a compile error (`invalid_function_code`).' },
    column: { type: 'integer', description: 'The column of a compile error (`invalid_function_code`).' },
    txHash: { type: 'string', description: 'The transaction of a run (`transaction_pending`).' },
    blockHash: { type: 'string', description: 'The block holding the transaction (`transaction_pending`).' },
    height: { type: 'integer', description: 'The chain’s height (`transaction_pending`).' },
    automations: {
      type: 'array',
      items: { type: 'string' },
      description: 'The ids of the automations that sign with the signer (`signer_in_use`).',
    },
  },
};

const detailOf = (codes: string[]): JsonSchema => ({
  type: 'object',
  required: ['code', 'message', 'details'],
  properties: {
    code: { type: 'string', enum: codes },
    message: { type: 'string', description: 'One sentence for a human.' },
    details: ref('ErrorDetails'),
  },
});

/** The functions area's envelope of an error, every field of it always answered. */
function functionsError(): JsonSchema {
  const properties = { success: { const: false }, error: detailOf(allCodes) };
  return {
    type: 'object',
    description:
      'An error of the functions area, the account, health and anything outside the areas: lower-case codes.',
    required: Object.keys(properties),
    properties,
  };
}

/** The error shapes of src/api/areas.ts, named: what any error of an area is. */
export const errorComponents = (): Record<string, JsonSchema> => ({
  ErrorDetails: errorDetails,
  FunctionsError: functionsError(),
  AutomationsError: {
    type: 'object',
    description: 'An error of the automations and secrets areas: upper-case codes.',
    required: ['error'],
    properties: { error: detailOf(allCodes.map((code) => code.toUpperCase())) },
  },
});

/** A header an answer naming it always carries: what it says, and its value's type. */
const header = (description: string, type = 'integer') => ({ description, required: true, schema: { type } });

/** Headers answered, declared once and referenced by the operations. */
export const headerComponents = {
  XRequestId: header(
    'The request’s id (echoed when the request sent a well-formed one): quote it when reporting a problem.',
    'string',
  ),
  RateLimitLimit: header('Requests the key may make per window.'),
  RateLimitRemaining: header('Requests the key may still make now.'),
  RateLimitReset: header('Seconds until the key’s budget is full again.'),
  RetryAfter: header('Seconds to wait before retrying.'),
  IdempotentReplayed: {
    description: '`true` when the answer is the one kept for this `Idempotency-Key`, the request not run again.',
    required: false,
    schema: { type: 'string', enum: ['true'] },
  },
  Allow: header('The methods the path takes.', 'string'),
};

/**
 * The headers of one answer of an operation: `X-Request-Id` always; on a protected area the
 * `RateLimit-*` of the key's bucket, set once the key is admitted (every answer but a 401, and but
 * a failure of the admission itself); `Retry-After` with a 429 or a 503; `Idempotent-Replayed` on
 * an operation that takes an `Idempotency-Key`.
 */
export function responseHeaders(
  { path, spec }: DeclaredRoute,
  status: number,
  answer: 'own' | 'error' = 'error',
): Record<string, unknown> {
  const headers: Record<string, unknown> = { 'X-Request-Id': headerRef('XRequestId') };
  if (isProtected(path) && status !== 401) {
    const always = status < 500;
    for (const name of ['Limit', 'Remaining', 'Reset'] as const)
      headers[`RateLimit-${name}`] = always ? headerRef(`RateLimit${name}`) : optional(`RateLimit${name}`);
  }
  if (answer === 'error' && (status === 429 || status === 503)) headers['Retry-After'] = headerRef('RetryAfter');
  if (spec.idempotency) headers['Idempotent-Replayed'] = headerRef('IdempotentReplayed');
  return headers;
}

/** A header the answer may lack (a failure before the key was admitted): described, not promised. */
const optional = (name: keyof typeof headerComponents) => ({ ...headerComponents[name], required: false });

/** A response of the document: what `eitherAnswer` merges. */
export interface Answered {
  description: string;
  headers: Record<string, { $ref?: string; required?: boolean }>;
  content: { 'application/json': { schema: JsonSchema } };
}

/**
 * A status a route answers itself and an error may answer too (a health check's 503 `degraded`,
 * or `service_unavailable`): either body, and the error's headers only as it may send them.
 */
export const eitherAnswer = (own: Answered, error: Answered): Answered => ({
  description: `${own.description}; or ${error.description}`,
  headers: {
    ...Object.fromEntries(
      Object.entries(error.headers).map(([name, header]) => [
        name,
        header.$ref ? optional(header.$ref.split('/').pop() as keyof typeof headerComponents) : header,
      ]),
    ),
    ...own.headers,
  },
  content: {
    'application/json': {
      schema: { anyOf: [own.content['application/json'].schema, error.content['application/json'].schema] },
    },
  },
});

/** The error answers of an operation, by status: each status's codes as the enum of its `code`. */
export function errorResponses(declared: DeclaredRoute): Record<string, unknown> {
  const area = areaOf(declared.path);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(declared))
    byStatus.set(errorStatus[code], [...(byStatus.get(errorStatus[code]) ?? []), code]);
  const responses: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: codes.map((code) => `\`${wireCode(area, code)}\`: ${meanings[code]}.`).join(' '),
      headers: responseHeaders(declared, status),
      content: {
        'application/json': {
          schema: {
            allOf: [
              ref(errorComponentOf(area)),
              {
                type: 'object',
                required: ['error'],
                properties: {
                  error: {
                    type: 'object',
                    required: ['code'],
                    properties: { code: { type: 'string', enum: codes.map((code) => wireCode(area, code)) } },
                  },
                },
              },
            ],
          },
        },
      },
    };
  }
  return responses;
}

/** The answer to a method a path does not take: no operation, so a response of its own. */
export const methodNotAllowed = {
  description: `\`method_not_allowed\`: ${meanings.method_not_allowed}.`,
  headers: { 'X-Request-Id': headerRef('XRequestId'), Allow: headerRef('Allow') },
  content: { 'application/json': { schema: ref('FunctionsError') } },
};
