import type { Router } from '@koa/router';
import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { type Answer, areaRouter, bare, route } from '../api/route-kit.ts';
import { AppError, invalidRequest } from '../errors.ts';
import type { Resources } from '../resources.ts';
import { operatorGuard } from './codec.auth.ts';
import { EncryptionCodec } from '../temporal/codec.ts';
import { recordCodecDecode } from '../audit/audit-event.sql.ts';
import { requestOrigin } from '../audit/actor.ts';

/** Protobuf JSON encodes bytes as base64, standard or URL-safe. */
const base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'must be base64');
const payloadsBody = z.object({
  payloads: z.array(z.object({ metadata: z.record(z.string(), base64).nullish(), data: base64.nullish() })),
});

type Operation = 'decode' | 'encode';

/** What each operation does, for the reference. */
const purposes: Record<Operation, string> = {
  decode: 'Opens sealed Temporal payloads (protobuf JSON) and passes any other payload through unchanged.',
  encode: "Seals Temporal payloads (protobuf JSON) as Neoflow's processes do.",
};
/** Who may call it, by path: the operator's token, or the capability the Web UI is given. */
const credentials = {
  token: 'Operators only: send `Authorization: Bearer <NEOFLOW_OPERATOR_TOKEN>`; API keys are refused (401).',
  capability:
    'For the Temporal Web UI, which cannot send a header: the capability in the path is the credential (docs/api.md, "Who may call it"); a wrong one is 401.',
};

const preflightHeaders = {
  'Access-Control-Allow-Methods': 'POST',
  'Access-Control-Allow-Headers': 'Authorization, Content-Type, X-Namespace',
  'Access-Control-Max-Age': '600',
};

/**
 * Temporal's remote codec protocol, so the Web UI (and `temporal --codec-endpoint`) can show
 * sealed payloads to operators: POST `{payloads}` in protobuf JSON to /v1/codec/decode or /encode,
 * or to /v1/codec/ui/<capability>/decode or /encode (see codec.auth.ts).
 * `X-Namespace` is accepted and ignored: one key seals the one namespace Neoflow uses.
 */
export function codecRoutes(resources: Resources): Router {
  const { config, payloadKeys } = resources;
  const codec = new EncryptionCodec(payloadKeys.current, payloadKeys.previous);
  const origins = config.codec.allowedOrigins;
  const guard = operatorGuard(config);
  // The same endpoint for operators who send the token, and under the Web UI's capability path.
  const paths = ['', '/ui/:capability'].flatMap((base) =>
    (['decode', 'encode'] satisfies Operation[]).map((operation) => ({
      path: `${base}/${operation}`,
      operation,
      forUi: base !== '',
    })),
  );
  return areaRouter(
    '/v1/codec',
    paths.flatMap(({ path, operation, forUi }) => [
      route({
        method: 'options',
        path,
        summary: `Preflight ${forUi ? 'a Web UI' : 'an operator'} ${operation}`,
        description:
          'CORS preflight of a browser page whose origin is in `NEOFLOW_CODEC_ALLOWED_ORIGINS`: 204 with the ' +
          'method and headers it may send. Another origin answers 403.',
        tag: 'Codec',
        responses: { 204: z.literal('') },
        errors: ['forbidden'],
        handle: async ({ ctx }) => preflight(ctx, origins),
      }),
      route({
        method: 'post',
        path,
        summary: `${operation === 'decode' ? 'Decode' : 'Encode'} payloads${forUi ? ' for the Web UI' : ''}`,
        description: `${purposes[operation]} ${forUi ? credentials.capability : credentials.token}`,
        tag: 'Codec',
        before: [allowOrigin(origins), guard],
        errors: ['unauthorized', 'forbidden'],
        body: payloadsBody,
        responses: { 200: payloadsBody },
        handle: async ({ ctx, body }) => {
          // Who opened payloads, and when: at most one event a minute per address (the Web UI decodes often).
          if (operation === 'decode') {
            const credential = forUi ? 'capability' : 'token';
            await recordCodecDecode(resources.em(), { payloads: body.payloads.length, credential }, requestOrigin(ctx));
          }
          const converted = await Promise.all(
            body.payloads.map((json, index) => convertOne(codec, operation, json, index)),
          );
          return bare({ payloads: converted.map(toJson) });
        },
      }),
    ]),
  );
}

/**
 * Lets the allowed browser origins read the answer, errors included (the UI shows the status).
 * An origin is never a credential: the guard decides who is answered at all.
 */
function allowOrigin(origins: string[]): Middleware {
  return async (ctx, next) => {
    ctx.vary('Origin');
    if (origins.includes(ctx.get('Origin'))) ctx.set('Access-Control-Allow-Origin', ctx.get('Origin'));
    await next();
  };
}

function preflight(ctx: Context, origins: string[]): Answer {
  ctx.vary('Origin');
  if (!origins.includes(ctx.get('Origin')))
    throw new AppError('forbidden', 'This origin may not call the codec endpoint (NEOFLOW_CODEC_ALLOWED_ORIGINS).');
  ctx.set({ ...preflightHeaders, 'Access-Control-Allow-Origin': ctx.get('Origin') });
  // An empty string, not undefined: the error handler answers 404 to a route that set no body.
  return bare('', 204);
}

/** One at a time, so that a payload that fails to open is named in the error. */
async function convertOne(codec: PayloadCodec, operation: Operation, json: PayloadJson, index: number) {
  try {
    return (await codec[operation]([fromJson(json)]))[0]!;
  } catch (error) {
    if (operation === 'encode') throw error;
    const message = `Payload ${index} could not be decoded: it was altered, or sealed with another key.`;
    throw invalidRequest(message, `payloads.${index}`);
  }
}

type PayloadJson = z.infer<typeof payloadsBody>['payloads'][number];

function fromJson({ metadata, data }: PayloadJson): Payload {
  const bytes = (value: string) => Buffer.from(value, 'base64');
  return {
    metadata: Object.fromEntries(Object.entries(metadata ?? {}).map(([key, value]) => [key, bytes(value)])),
    data: bytes(data ?? ''),
  };
}

function toJson({ metadata, data }: Payload) {
  const text = (value: Uint8Array | null | undefined) => Buffer.from(value ?? []).toString('base64');
  return {
    metadata: Object.fromEntries(Object.entries(metadata ?? {}).map(([key, value]) => [key, text(value)])),
    data: text(data),
  };
}
