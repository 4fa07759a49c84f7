// Monitors (CONTRACT §13): saved checks run by the scheduler every intervalSeconds and on demand; every run is
// stored with its findings. The edges of src/workspace/monitor-service.ts (a scoped key sees the monitors of its
// inboxes; runs on demand are one at a time per team).
import { z } from 'zod';
import { pageOf } from '../../lib/cursor.ts';
import { MONITOR_KINDS } from '../../workspace/monitors.ts';
import { iso, type MonitorRow, type MonitorRunRow } from '../../workspace/tables.ts';
import { InboxId, principal } from '../common.ts';
import { op } from '../op.ts';
import { Cursor, Limit } from '../views.ts';
import { PreviewStatus, STATUS } from './common.ts';

const MonitorId = z.string().min(1).max(64).describe('Monitor id (mon_…)');
const MonitorView = z.object({
  monitorId: z.string(),
  name: z.string(),
  kind: z.enum(MONITOR_KINDS),
  params: z.record(z.string(), z.unknown()),
  intervalSeconds: z.number(),
  enabled: z.boolean(),
  nextRunAt: z.string(),
  lastRunAt: z.string().nullable(),
  lastStatus: z
    .string()
    .nullable()
    .describe(
      'ok, failed (expected mail missing), alert (threads without reply), error, or incomplete (stopped at a cap before it could tell)',
    ),
  createdAt: z.string(),
});
const RunView = z.object({
  runId: z.string(),
  monitorId: z.string(),
  at: z.string(),
  trigger: z.enum(['schedule', 'manual']),
  status: z.string(),
  findings: z.array(z.record(z.string(), z.unknown())),
  stoppedAtCap: z
    .string()
    .nullable()
    .describe('Where the run stopped early, "stopped at the cap: …" naming the flag; null when it examined everything'),
});

const monitorView = (m: MonitorRow) => ({
  monitorId: m.id,
  name: m.name,
  kind: m.kind as (typeof MONITOR_KINDS)[number],
  params: JSON.parse(m.params_json) as Record<string, unknown>,
  intervalSeconds: m.interval_seconds,
  enabled: m.enabled === 1,
  nextRunAt: iso(m.next_run_at),
  lastRunAt: m.last_run_at === null ? null : iso(m.last_run_at),
  lastStatus: m.last_status,
  createdAt: iso(m.created_at),
});
const runView = (r: MonitorRunRow) => {
  const findings = JSON.parse(r.findings_json) as Array<Record<string, unknown>>;
  const caps = findings.filter((f) => typeof f.cap === 'string').map((f) => String(f.problem));
  return {
    runId: r.id,
    monitorId: r.monitor_id,
    at: iso(r.at),
    trigger: r.trigger as 'schedule' | 'manual',
    status: r.status,
    findings,
    stoppedAtCap: caps.length ? caps.join('; ') : null,
  };
};

export const createMonitorOp = op({
  name: 'workspace.create_monitor',
  summary: 'Create a monitor',
  access: 'write',
  http: { method: 'POST', path: '/v1/workspace/monitors', status: 201 },
  tool: {
    name: 'svc_workspace_create_monitor',
    description: 'Save a scheduled check: expect_mail (mail matching within N minutes) or no_reply_after (unanswered for hours).',
    annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: false },
  },
  input: z.strictObject({
    name: z.string().trim().min(1).max(200).describe('A name for people'),
    kind: z.enum(MONITOR_KINDS).describe('expect_mail or no_reply_after'),
    inboxId: InboxId.describe('The inbox watched'),
    from: z.string().max(320).optional().describe('expect_mail: sender contains this'),
    subjectContains: z.string().max(500).optional().describe('expect_mail: subject contains this'),
    textContains: z.string().max(500).optional().describe('expect_mail: text contains this'),
    withinMinutes: z.number().int().min(1).max(10_080).optional().describe('expect_mail: look back this many minutes (default 60)'),
    hours: z.number().min(0.1).max(2160).optional().describe('no_reply_after: hours without a reply (default 24)'),
    intervalSeconds: z
      .number()
      .int()
      .min(60)
      .max(7 * 86_400)
      .default(3600)
      .describe('How often the scheduler runs it (60 s to 7 days; default 3600)'),
    enabled: z.boolean().default(true).describe('Run on the schedule (runs on demand either way)'),
  }),
  output: MonitorView,
  audit: { action: 'workspace.monitor.create', target: (_i, o) => o.monitorId },
  async handler(ctx, input) {
    return monitorView(await ctx.services.monitors.create(principal(ctx), input));
  },
});

export const listMonitorsOp = op({
  name: 'workspace.list_monitors',
  summary: 'List monitors',
  access: 'read',
  http: { method: 'GET', path: '/v1/workspace/monitors' },
  tool: {
    name: 'svc_workspace_list_monitors',
    description: 'List saved monitors with schedule, next and last run, and last status.',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  input: z.strictObject({}),
  output: z.object({ status: PreviewStatus, items: z.array(MonitorView), nextCursor: z.null() }),
  async handler(ctx) {
    const items = (await ctx.services.monitors.list(principal(ctx))).map(monitorView);
    return { status: STATUS, items, nextCursor: null };
  },
});

export const deleteMonitorOp = op({
  name: 'workspace.delete_monitor',
  summary: 'Delete a monitor',
  access: 'write',
  http: { method: 'DELETE', path: '/v1/workspace/monitors/:id' },
  tool: {
    name: 'svc_workspace_delete_monitor',
    description: 'Delete a monitor and its stored runs; the scheduler stops running it at once.',
    args: { monitorId: 'id' },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  },
  input: z.strictObject({ id: MonitorId }),
  output: z.object({ monitorId: z.string(), deleted: z.literal(true) }),
  audit: { action: 'workspace.monitor.delete', target: (i) => i.id },
  async handler(ctx, input) {
    const m = await ctx.services.monitors.delete(principal(ctx), input.id);
    return { monitorId: m.id, deleted: true as const };
  },
});

export const runMonitorOp = op({
  name: 'workspace.run_monitor',
  summary: 'Run a monitor now',
  access: 'write',
  audit: false,
  http: { method: 'POST', path: '/v1/workspace/monitors/:id/run' },
  tool: {
    name: 'svc_workspace_run_monitor',
    description: 'Run a monitor now (its schedule stays); returns the stored run with its findings.',
    args: { monitorId: 'id' },
    annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: false },
  },
  input: z.strictObject({ id: MonitorId }),
  output: RunView,
  async handler(ctx, input) {
    return runView(await ctx.services.monitors.runNow(principal(ctx), input.id));
  },
});

export const listMonitorRunsOp = op({
  name: 'workspace.list_monitor_runs',
  summary: 'List a monitor’s runs',
  access: 'read',
  http: { method: 'GET', path: '/v1/workspace/monitors/:id/runs' },
  tool: {
    name: 'svc_workspace_list_monitor_runs',
    description: "List a monitor's runs, newest first, with trigger, status and findings.",
    args: { monitorId: 'id' },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  input: z.strictObject({ id: MonitorId, limit: Limit, cursor: Cursor }),
  output: z.object({ items: z.array(RunView), nextCursor: z.string().nullable() }),
  async handler(ctx, input) {
    const rows = await ctx.services.monitors.runs(principal(ctx), input.id, input.cursor, input.limit);
    return pageOf(rows, input.limit, runView, (r) => ({ s: r.seq }));
  },
});

export const workspaceMonitorOps = [listMonitorsOp, createMonitorOp, deleteMonitorOp, runMonitorOp, listMonitorRunsOp];
