import type { Router } from '@koa/router';
import { z } from 'zod';
import { areaRouter, route } from '../../api/route-kit.ts';
import { parseJson, readRawBody } from '../../api/json-body.ts';
import type { Resources } from '../../resources.ts';
import type { WorkflowStarter } from '../../temporal/workflow-starter.ts';
import { deliveryLanes } from './delivery-lanes.ts';
import { acceptHook } from './hooks.control.ts';
import { hookRunSchema } from './hook.view.ts';

/** A hook's body: JSON of at most 256 KiB, bounded before it is read whole, parsed once admitted. */
const maxHookBodyBytes = 256 * 1024;

/** A path fit for a log line: a hook's path is half its credential, cut even in the wrong case. */
export const loggableHookPath = (path: string) => path.replace(/^\/v1\/hooks\/[^/]*/i, '/v1/hooks/…');

/**
 * The inbound webhooks area: no API key (src/api/auth.ts leaves it open); the hook's token or an
 * HMAC of its body is the credential (hooks.control.ts). Answers in the general envelope.
 */
export function hooksRoutes(resources: Resources, starter: WorkflowStarter): Router {
  const { config } = resources;
  const lanes = deliveryLanes(config.hookRates.perAccount);
  return areaRouter('/v1/hooks', [
    route({
      method: 'post',
      path: '/:path',
      errors: ['not_found', 'conflict', 'rate_limit_exceeded', 'payload_too_large'],
      summary: 'Deliver to a hook',
      description:
        'Starts a run of the `webhook` automation this path belongs to, with the JSON body (at most 256 KiB) as `trigger.body`, and answers 202 with the run once it is recorded, before its action runs. The credential is the automation\'s token (`Authorization: Bearer nfh_…` or `X-Neoflow-Token`) or an HMAC signature of the raw body in the header the trigger names. An unknown path and wrong credentials answer the same 404; a paused automation 409, recording nothing. An `Idempotency-Key` (or the body field the trigger names as `dedupField`) makes a repeat answer the same run for 24 h. Docs/api.md, "Inbound webhooks".',
      tag: 'Automations',
      // Read raw by the handler (an HMAC is of the bytes sent); declared for the document.
      body: z.unknown().describe('Any JSON value: the run receives it as `trigger.body`.'),
      bodyOptional: true,
      responses: { 202: hookRunSchema },
      handle: async ({ ctx, params }) => {
        const raw = await readRawBody(ctx, maxHookBodyBytes);
        const accepted = await acceptHook(
          { ...starter, em: resources.em(), masterKeys: resources.masterKeys, rates: config.hookRates, lanes },
          {
            path: params.path,
            header: (name) => ctx.get(name),
            raw,
            parse: (bytes) => parseJson(bytes.toString('utf8')),
          },
        );
        if (accepted.repeated) ctx.set('Idempotent-Replayed', 'true');
        return { status: 202, body: { run: accepted.run } };
      },
    }),
  ]);
}
