// Monitors (`mon_…`): saved checks run by a scheduler and on demand, each run (`mrn_…`) stored with its findings.
// `expect_mail`: mail from X to inbox Y matching Z arrived within N minutes. `no_reply_after`: conversations of an
// inbox whose last message is inbound and older than N hours. This file is the run itself (`runMonitor`); the
// queries are in monitor-repo.ts, and the service that keeps, schedules and runs monitors in monitor-service.ts.
//
// Anyone can mail an inbox, so the mail a monitor reads is a stranger's: every run is bounded by construction. It
// reads the small columns of at most `monitorMaxMessages` messages (never a body, headers or the extraction), and only
// a `textContains` reads text: the first `monitorMaxTextChars` characters of each candidate, in small batches that
// yield to the event loop, until the run has read the text of `monitorRunBytes` message bytes. A tick of the
// scheduler takes due monitors one per team in turn and stops starting runs after `monitorTickMs` or
// `monitorTickBytes`; what is left stays due for the next tick. A run that stops at a cap says so in its findings
// (`problem: "stopped at the cap: …"`) and is `incomplete` when what it read cannot answer the question.
import type { Config } from '../config.ts';
import type { MonitorRepo } from './monitor-repo.ts';
import type { WsMessage } from './source.ts';
import { conversations } from './suggest.ts';
import { type MonitorRow, type MonitorRunRow, nextSeq, wsId } from './tables.ts';

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
  /** Set on the finding that says where a run stopped: the flag of the cap it reached. */
  cap?: string;
}

/** The caps on monitors' work (flags of the same names, see src/config.ts). */
export interface MonitorLimits {
  maxMessages: number;
  maxTextChars: number;
  runBytes: number;
  tickBytes: number;
  tickMs: number;
}

export const monitorLimits = (
  c: Pick<Config, 'monitorMaxMessages' | 'monitorMaxTextChars' | 'monitorRunBytes' | 'monitorTickBytes' | 'monitorTickMs'>,
): MonitorLimits => ({
  maxMessages: c.monitorMaxMessages,
  maxTextChars: c.monitorMaxTextChars,
  runBytes: c.monitorRunBytes,
  tickBytes: c.monitorTickBytes,
  tickMs: c.monitorTickMs,
});

/** What a tick has left; runs of the tick take their text reads from it. */
export interface TickBudget {
  bytesLeft: number;
}

/** Statuses a run can have. `incomplete`: it stopped at a cap before it could tell. */
export const RUN_STATUSES = ['ok', 'failed', 'alert', 'error', 'incomplete'] as const;

/** Text reads of one query: at most this many messages and (by their stored size) bytes. */
const TEXT_BATCH_MESSAGES = 25;
const TEXT_BATCH_BYTES = 8 * 1024 * 1024;
/** Subjects and senders are compared and shown at most this long (a header line is 998 characters). */
const FIELD_CHARS = 998;

const has = (hay: string, needle: string | undefined) => needle === undefined || hay.toLowerCase().includes(needle.toLowerCase());
const yieldNow = () => new Promise<void>((r) => setImmediate(r));
const mib = (n: number) => `${(n / 1048576).toFixed(n < 1048576 ? 2 : 0)} MiB`;

interface Seen {
  id: string;
  threadId: string | null;
  direction: 'inbound' | 'outbound';
  from: string;
  subject: string;
  at: number;
  size: number;
}

/**
 * The newest `limit` messages of the inbox received since `since`, newest first: only the columns stored before the
 * bodies (SQLite never walks a large body to read them). `more` when the window holds more than that.
 */
async function recentMail(
  repo: MonitorRepo,
  m: MonitorRow,
  inboxId: string,
  since: number,
  limit: number,
): Promise<{ address: string; mail: Seen[]; more: boolean } | null> {
  const inbox = await repo.inbox(m.team_id, inboxId);
  if (!inbox) return null;
  const rows = await repo.recentMail(inbox.id, since, limit + 1);
  const own = inbox.address.toLowerCase();
  const mail = rows.slice(0, limit).map((r): Seen => {
    const from = (r.from_address ?? '').slice(0, FIELD_CHARS).toLowerCase();
    return {
      id: r.id,
      threadId: r.thread_id ?? null,
      // Mail from the inbox's own address is ours (as in source.ts), whatever the direction column says.
      direction: r.direction === 'outbound' || from === own ? 'outbound' : 'inbound',
      from,
      subject: r.subject.slice(0, FIELD_CHARS),
      at: r.date ?? r.received_at,
      size: Number(r.size),
    };
  });
  return { address: inbox.address, mail, more: rows.length > limit };
}

/** HTML to text in one linear pass (a regular expression over a stranger's markup could backtrack). */
export function htmlText(h: string): string {
  const parts: string[] = [];
  let i = 0;
  while (i < h.length) {
    const lt = h.indexOf('<', i);
    if (lt < 0) {
      parts.push(h.slice(i));
      break;
    }
    parts.push(h.slice(i, lt), ' ');
    const gt = h.indexOf('>', lt + 1);
    if (gt < 0) break;
    i = gt + 1;
  }
  return parts.join('').replaceAll('&nbsp;', ' ').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}

/** The start of each message's text (or of its HTML, as text): one query, `chars` characters at most each. */
async function textStarts(repo: MonitorRepo, ids: string[], chars: number): Promise<Map<string, string>> {
  const rows = await repo.textStarts(ids, chars);
  return new Map(rows.map((r) => [r.id, r.t === null ? '' : r.t[0] === 't' ? r.t.slice(1) : htmlText(r.t.slice(1))]));
}

const capNote = (detail: string, flag: string): Finding => ({ problem: `stopped at the cap: ${detail}`, cap: flag });

/**
 * Runs one monitor at `now` and stores the run. `tick` is the scheduler's budget (its text reads are taken from it); a
 * manual run has only its own caps.
 */
export async function runMonitor(
  repo: MonitorRepo,
  lim: MonitorLimits,
  now: number,
  m: MonitorRow,
  trigger: 'schedule' | 'manual',
  tick?: TickBudget,
): Promise<MonitorRunRow> {
  const p = JSON.parse(m.params_json) as MonitorParams;
  let status: string;
  let findings: Finding[] = [];
  const stops: Finding[] = [];
  const tooMany = (what: string) =>
    capNote(
      `the ${what} has more than ${lim.maxMessages} messages; only the newest ${lim.maxMessages} were examined (--monitor-max-messages)`,
      '--monitor-max-messages',
    );
  try {
    if (m.kind === 'expect_mail') {
      const within = p.withinMinutes ?? 60;
      const r = await recentMail(repo, m, p.inboxId, now - within * 60_000, lim.maxMessages);
      if (!r) [status, findings] = ['error', [{ problem: `inbox ${p.inboxId} no longer exists` }]];
      else {
        if (r.more) stops.push(tooMany(`last ${within} minutes`));
        const candidates = r.mail.filter((x) => x.direction === 'inbound' && has(x.from, p.from) && has(x.subject, p.subjectContains));
        const hits: Seen[] = [];
        if (p.textContains === undefined) hits.push(...candidates.slice(0, 20));
        else {
          let spent = 0;
          let i = 0;
          while (i < candidates.length && hits.length < 20) {
            const batch: Seen[] = [];
            let bytes = 0;
            while (i < candidates.length && batch.length < TEXT_BATCH_MESSAGES && bytes < TEXT_BATCH_BYTES) {
              const c = candidates[i]!;
              if (spent + bytes + c.size > lim.runBytes) break;
              batch.push(c);
              bytes += c.size;
              i++;
            }
            if (batch.length === 0) {
              stops.push(
                capNote(
                  `read the text of ${i} of ${candidates.length} candidate messages (${mib(spent)}); the next would pass the ${mib(lim.runBytes)} a run may read (--monitor-run-bytes)`,
                  '--monitor-run-bytes',
                ),
              );
              break;
            }
            const texts = await textStarts(
              repo,
              batch.map((x) => x.id),
              lim.maxTextChars,
            );
            spent += bytes;
            if (tick) tick.bytesLeft -= bytes;
            for (const c of batch) if (hits.length < 20 && has(texts.get(c.id) ?? '', p.textContains)) hits.push(c);
            await yieldNow();
          }
        }
        findings = hits
          .toReversed()
          .map((x) => ({ messageId: x.id, from: x.from, subject: x.subject, receivedAt: new Date(x.at).toISOString() }));
        status = hits.length ? 'ok' : stops.length ? 'incomplete' : 'failed';
        if (!hits.length && !stops.length) findings = [{ problem: `no matching mail in the last ${within} minutes` }];
      }
    } else {
      const hours = p.hours ?? 24;
      const r = await recentMail(repo, m, p.inboxId, now - 30 * 24 * 3600_000, lim.maxMessages);
      if (!r) [status, findings] = ['error', [{ problem: `inbox ${p.inboxId} no longer exists` }]];
      else {
        if (r.more) stops.push(tooMany('last 30 days'));
        const asMessages = r.mail.toReversed().map(
          (x): WsMessage => ({
            id: x.id,
            threadId: x.threadId,
            from: x.from,
            fromName: '',
            to: [],
            subject: x.subject,
            text: '',
            date: x.at,
            headers: [],
            attachmentCount: 0,
            direction: x.direction,
            messageIdHeader: null,
          }),
        );
        for (const c of conversations(asMessages)) {
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
        status = findings.length ? 'alert' : stops.length ? 'incomplete' : 'ok';
      }
    }
  } catch (e) {
    [status, findings] = ['error', [{ problem: (e as Error).message.slice(0, 300) }]];
  }
  const stored = [...findings.slice(0, 100 - stops.length), ...stops];
  const run: MonitorRunRow = {
    id: wsId('mrn'),
    monitor_id: m.id,
    team_id: m.team_id,
    at: now,
    trigger,
    status,
    findings_json: JSON.stringify(stored),
    seq: nextSeq(now),
  };
  await repo.recordRun(run, trigger === 'schedule' ? now + m.interval_seconds * 1000 : null);
  return run;
}

/** Due monitors one per team in turn (each team's oldest-due first), so one team's many monitors delay another's by one run at most. */
export function inTurns<T extends { team_id: string }>(rows: T[]): T[] {
  const teams = new Map<string, T[]>();
  for (const r of rows) {
    const q = teams.get(r.team_id);
    if (q) q.push(r);
    else teams.set(r.team_id, [r]);
  }
  const queues = [...teams.values()];
  const out: T[] = [];
  for (let round = 0; out.length < rows.length; round++) for (const q of queues) if (round < q.length) out.push(q[round]!);
  return out;
}

/** How often the scheduler looks for due monitors; a monitor's own interval is at least this. */
export const SCHEDULER_TICK_MS = 15_000;
