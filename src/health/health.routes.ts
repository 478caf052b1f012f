import type { Router } from '@koa/router';
import { z } from 'zod';
import { areaRouter, bare, route } from '../api/route-kit.ts';
import { ping } from '../db/ping.sql.ts';
import type { Resources } from '../resources.ts';
import { ProbeFailure, sharedHealth, type HealthProbes } from './health.service.ts';

function healthProbes(resources: Resources): HealthProbes {
  return {
    postgres: async () => {
      await ping(resources.orm.em);
      return {};
    },
    temporal: async () => {
      await resources.temporal.client.workflowService.getSystemInfo({});
      return {};
    },
    // Every network and node is shown, the default network's height too when its nodes answer.
    neo: async () => {
      const networks = resources.networks.report();
      try {
        return { blockHeight: await resources.neo.getBlockCount(), networks };
      } catch (error) {
        throw new ProbeFailure(error, { networks });
      }
    },
  };
}

const componentSchema = z.looseObject({
  status: z.enum(['ok', 'down']),
  latencyMs: z.number(),
  error: z.string().optional(),
});

const nodeSchema = z.strictObject({
  url: z.string().meta({ description: 'The node, without user, password, path or query.' }),
  status: z.enum(['ok', 'lagging', 'down', 'refused']),
  kind: z.enum(['neo-go', 'csharp', 'csharp-no-logs']).nullable(),
  primary: z.boolean(),
  blockCount: z.number().int().nullable(),
  lagBlocks: z.number().int().nullable(),
  latencyMs: z.number().nullable(),
  recentFailures: z.number().int(),
  reason: z.string().optional(),
});

const networkSchema = z.strictObject({
  name: z.string(),
  magic: z.number().int().nullable(),
  status: z.enum(['ok', 'degraded', 'down']),
  reason: z.string().optional(),
  nodes: z.array(nodeSchema),
});

const healthSchema = z
  .strictObject({
    status: z.enum(['ok', 'degraded']),
    postgres: componentSchema,
    temporal: componentSchema,
    neo: componentSchema.extend({
      blockHeight: z.number().int().optional(),
      networks: z.array(networkSchema).optional(),
    }),
  })
  .meta({ id: 'Health' });

/**
 * GET /v1/health needs no key: load balancers and operators call it. 503 when degraded. A report
 * answers for a second (`reportFreshMs`), so callers cannot multiply the probes' remote calls.
 */
export function healthRoutes(resources: Resources): Router {
  const health = sharedHealth(healthProbes(resources));
  return areaRouter('/v1/health', [
    route({
      method: 'get',
      path: '/',
      summary: 'Check readiness',
      description:
        'Probes PostgreSQL, Temporal and the default Neo network: 200 when all answer, else 503 with the same body, `status: "degraded"`. `neo.networks` shows every network and each of its nodes (status, kind, height, lag, primary, why one is refused or lagging). No key, not rate-limited.',
      tag: 'Health',
      responses: { 200: healthSchema, 503: healthSchema },
      handle: async () => {
        const report = await health();
        return bare(report, report.status === 'ok' ? 200 : 503);
      },
    }),
  ]);
}

/**
 * GET /v1/livez needs no key and checks nothing beyond this process: it serves. For a container's
 * liveness (restart it when this fails); /v1/health is readiness, and a Neo RPC outage there must
 * not get every API restarted.
 */
export function livenessRoutes(): Router {
  return areaRouter('/v1/livez', [
    route({
      method: 'get',
      path: '/',
      summary: 'Check liveness',
      description:
        "Answers 200 whenever the process serves HTTP, probing nothing: for a container's liveness check, so that an outage of a dependency restarts no API. No key.",
      tag: 'Health',
      responses: { 200: z.strictObject({ status: z.literal('ok') }) },
      handle: async () => bare({ status: 'ok' }),
    }),
  ]);
}
