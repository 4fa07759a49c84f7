// GET /v1/cluster: the instances sharing this database, from their heartbeat rows (src/cluster/).
import { z } from 'zod';
import { HEARTBEAT_MS, STALE_AFTER_MS } from '../../cluster/service.ts';
import { op } from '../op.ts';

const Instance = z.object({
  id: z.string().describe('the instance id (also the inboxd_instance label of its metrics)'),
  hostname: z.string(),
  pid: z.number().int(),
  version: z.string(),
  startedAt: z.string(),
  uptimeSeconds: z.number().int(),
  lastHeartbeat: z.string(),
  heartbeatAgeSeconds: z.number(),
  state: z
    .enum(['up', 'stale', 'stopped'])
    .describe(`up: heartbeat within ${STALE_AFTER_MS / 1000} s; stale: late (died or lost the database); stopped: shut down cleanly`),
  roles: z.array(z.string()).describe('the once-per-cluster background jobs this instance leads (sweeps, schedulers)'),
  health: z
    .object({ status: z.enum(['ok', 'degraded', 'down']), reason: z.string().nullable() })
    .describe('as its /health saw it at its last heartbeat'),
  models: z
    .array(
      z.object({
        model: z.string().describe('provider/model@host'),
        ready: z.boolean(),
        lastProbe: z.object({ at: z.string(), ok: z.boolean(), latencyMs: z.number(), error: z.string().nullable() }).nullable(),
      }),
    )
    .describe(
      'its model chain for structured extraction (--models) as that instance sees it, with its last probe; the built-in engine is left out',
    ),
  self: z.boolean().describe('the instance that answered this request'),
});

export const cluster = op({
  name: 'system.cluster',
  summary: 'Instances of the cluster',
  description: `Every inboxd instance sharing this database (one on SQLite), from the heartbeat each writes every ${HEARTBEAT_MS / 1000} s: id, version, uptime, the background jobs it leads, its health, and whether its heartbeat is late (stale). Admin only.`,
  access: 'admin',
  http: { method: 'GET', path: '/v1/cluster' },
  input: z.strictObject({}),
  output: z.object({
    instance: z.string().describe('the id of the instance that answered'),
    heartbeatSeconds: z.number(),
    staleAfterSeconds: z.number(),
    instances: z.array(Instance),
  }),
  audit: false,
  async handler(ctx) {
    const c = ctx.services.cluster;
    const { now, instances } = await c.list();
    const iso = (ms: number) => new Date(ms).toISOString();
    return {
      instance: c.instanceId,
      heartbeatSeconds: HEARTBEAT_MS / 1000,
      staleAfterSeconds: STALE_AFTER_MS / 1000,
      instances: instances.map((i) => ({
        id: i.id,
        hostname: i.hostname,
        pid: i.pid,
        version: i.version,
        startedAt: iso(i.startedAt),
        uptimeSeconds: Math.max(0, Math.round(((i.stoppedAt ?? (i.state === 'up' ? now : i.heartbeatAt)) - i.startedAt) / 1000)),
        lastHeartbeat: iso(i.heartbeatAt),
        heartbeatAgeSeconds: Math.max(0, Math.round((now - i.heartbeatAt) / 100) / 10),
        state: i.state,
        roles: i.roles,
        health: i.health,
        models: i.models,
        self: i.self,
      })),
    };
  },
});
