// Monitors (`mon_…`): saved checks run by a scheduler and on demand, each run (`mrn_…`) stored with its findings.
// `expect_mail`: mail from X to inbox Y matching Z arrived within N minutes. `no_reply_after`: conversations of an
// inbox whose last message is inbound and older than N hours. The scheduler reads time from services.clock, so
// tests move a controllable clock and call tick().
import type { Services } from '../services.ts';
import { MAX_THREAD_MESSAGES, fromRow, type WsMessage } from './source.ts';
import { conversations } from './suggest.ts';
import { type MonitorRow, type MonitorRunRow, nextSeq, wsDb, wsId } from './tables.ts';

export const MONITOR_KINDS = ['expect_mail', 'no_reply_after'] as const;
export type MonitorKind = (typeof MONITOR_KINDS)[number];

export interface MonitorParams {
  inboxId: string;
  from?: string;
  subjectContains?: string;
  textContains?: string;
  withinMinutes?: number;
  hours?: number;
}

export interface Finding {
  messageId?: string;
  threadId?: string | null;
  from?: string;
  subject?: string;
  receivedAt?: string;
  problem?: string;
}

const has = (hay: string, needle: string | undefined) => needle === undefined || hay.toLowerCase().includes(needle.toLowerCase());

async function inboxMail(
  s: Services,
  m: MonitorRow,
  inboxId: string,
  since: number,
): Promise<{ address: string; mail: WsMessage[] } | null> {
  const inbox = await s.store.db
    .selectFrom('inboxes')
    .select(['id', 'address'])
    .where('id', '=', inboxId)
    .where('team_id', '=', m.team_id)
    .executeTakeFirst();
  if (!inbox) return null;
  const rows = await s.store.db
    .selectFrom('messages')
    .selectAll()
    .where('inbox_id', '=', inbox.id)
    .where('received_at', '>=', since)
    .orderBy('received_at', 'desc')
    .limit(MAX_THREAD_MESSAGES * 5)
    .execute();
  return { address: inbox.address, mail: rows.reverse().map((r) => fromRow(r, inbox.address)) };
}

export async function runMonitor(s: Services, m: MonitorRow, trigger: 'schedule' | 'manual'): Promise<MonitorRunRow> {
  const now = s.clock.now();
  const p = JSON.parse(m.params_json) as MonitorParams;
  let status: string;
  let findings: Finding[] = [];
  try {
    if (m.kind === 'expect_mail') {
      const r = await inboxMail(s, m, p.inboxId, now - (p.withinMinutes ?? 60) * 60_000);
      if (!r) [status, findings] = ['error', [{ problem: `inbox ${p.inboxId} no longer exists` }]];
      else {
        const hits = r.mail.filter(
          (x) => x.direction === 'inbound' && has(x.from, p.from) && has(x.subject, p.subjectContains) && has(x.text, p.textContains),
        );
        findings = hits
          .slice(-20)
          .map((x) => ({ messageId: x.id!, from: x.from, subject: x.subject, receivedAt: new Date(x.date ?? now).toISOString() }));
        status = hits.length ? 'ok' : 'failed';
        if (!hits.length) findings = [{ problem: `no matching mail in the last ${p.withinMinutes ?? 60} minutes` }];
      }
    } else {
      const hours = p.hours ?? 24;
      const r = await inboxMail(s, m, p.inboxId, now - 30 * 24 * 3600_000);
      if (!r) [status, findings] = ['error', [{ problem: `inbox ${p.inboxId} no longer exists` }]];
      else {
        for (const c of conversations(r.mail)) {
          const last = c.at(-1)!;
          if (last.direction === 'inbound' && (last.date ?? now) <= now - hours * 3600_000)
            findings.push({
              messageId: last.id!,
              threadId: last.threadId,
              from: last.from,
              subject: last.subject,
              receivedAt: new Date(last.date ?? now).toISOString(),
              problem: `no reply after ${hours} hours`,
            });
        }
        status = findings.length ? 'alert' : 'ok';
      }
    }
  } catch (e) {
    [status, findings] = ['error', [{ problem: (e as Error).message.slice(0, 300) }]];
  }
  const run: MonitorRunRow = {
    id: wsId('mrn'),
    monitor_id: m.id,
    team_id: m.team_id,
    at: now,
    trigger,
    status,
    findings_json: JSON.stringify(findings.slice(0, 100)),
    seq: nextSeq(now),
  };
  const db = wsDb(s);
  await db.insertInto('workspace_monitor_runs').values(run).execute();
  await db
    .updateTable('workspace_monitors')
    .set({ last_run_at: now, last_status: status, ...(trigger === 'schedule' ? { next_run_at: now + m.interval_seconds * 1000 } : {}) })
    .where('id', '=', m.id)
    .execute();
  return run;
}

/** Runs every enabled monitor whose time has come; returns the runs made. Serialised: a slow run never overlaps. */
export class MonitorScheduler {
  private readonly s: Services;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<MonitorRunRow[]> | null = null;
  constructor(s: Services) {
    this.s = s;
  }

  start(intervalMs: number): void {
    this.timer = setInterval(
      () => void this.tick().catch((e: Error) => this.s.log.error('workspace monitor tick failed', { err: e })),
      intervalMs,
    );
    this.timer.unref();
  }

  tick(): Promise<MonitorRunRow[]> {
    this.running ??= this.due().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async due(): Promise<MonitorRunRow[]> {
    const now = this.s.clock.now();
    const rows = await wsDb(this.s)
      .selectFrom('workspace_monitors')
      .selectAll()
      .where('enabled', '=', 1)
      .where('next_run_at', '<=', now)
      .orderBy('next_run_at')
      .limit(100)
      .execute();
    const out: MonitorRunRow[] = [];
    for (const m of rows) {
      if (this.s.shutdown.aborted) break;
      out.push(await runMonitor(this.s, m, 'schedule'));
    }
    return out;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }
}

const schedulers = new WeakMap<Services, MonitorScheduler>();
export function monitorScheduler(s: Services): MonitorScheduler {
  let m = schedulers.get(s);
  if (!m) schedulers.set(s, (m = new MonitorScheduler(s)));
  return m;
}

/** How often the scheduler looks for due monitors; a monitor's own interval is at least this. */
export const SCHEDULER_TICK_MS = 15_000;
