import { createHmac } from 'node:crypto';
import type { Middleware } from 'koa';
import { digest, operatorBearer, sameSecret } from '../auth/operator-token.ts';
import { requireSetting, type Config } from '../config.ts';
import { AppError } from '../errors.ts';

const unauthorized = () =>
  new AppError(
    'unauthorized',
    'The operator token is required (Authorization: Bearer <NEOFLOW_OPERATOR_TOKEN>), or the Web UI’s codec URL.',
  );

/** Under this prefix, the codec endpoint is served again for clients that cannot send a header. */
const capabilityPrefix = '/v1/codec/ui/';

/**
 * The secret path segment that stands for the operator token: HMAC-SHA256 of a fixed label under
 * the token, so it is derived again wherever the token is known, says nothing about the token,
 * and changes with it.
 */
export function codecCapability(operatorToken: string): string {
  return createHmac('sha256', operatorToken)
    .update('neoflow codec endpoint for the Temporal Web UI')
    .digest('base64url');
}

/** The codec endpoint's path for a Temporal Web UI (`--ui-codec-endpoint`), which sends no token. */
export const webUiCodecPath = (operatorToken: string) => `${capabilityPrefix}${codecCapability(operatorToken)}`;

/** A path fit for a log line: the capability is a credential, cut even from a path in the wrong case. */
export const loggablePath = (path: string) => path.replace(/^\/v1\/codec\/ui\/[^/]*/i, `${capabilityPrefix}…`);

/**
 * Only operators may decode payloads. The caller presents the operator token as a bearer token,
 * or calls the endpoint under the capability path (`:capability` = codecCapability(token)).
 *
 * The capability exists for the Web UI: it calls the codec endpoint straight from the browser with
 * neither a configurable header nor, as `temporal server start-dev` configures it, credentials, so
 * the secret it proves has to be in the URL it is given. No header is ever trusted instead, in any
 * mode: an `Origin` is only a claim, which any program can make.
 */
export function operatorGuard(config: Config): Middleware {
  const token = requireSetting(config.secrets.operatorToken, 'NEOFLOW_OPERATOR_TOKEN');
  const presentsToken = operatorBearer(token);
  const expectedCapability = digest(codecCapability(token));
  return async (ctx, next) => {
    const capability = (ctx.params as Record<string, string | undefined> | undefined)?.capability;
    const admitted =
      presentsToken(ctx.get('Authorization')) ||
      (capability !== undefined && sameSecret(capability, expectedCapability));
    if (!admitted) throw unauthorized();
    await next();
  };
}
