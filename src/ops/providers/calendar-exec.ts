// svc_workspace_execute_calendar_event (CONTRACT §13/§15): an event created under the workspace policy, idempotent
// like execute-reply (src/workspace/idempotency.ts): the same key returns the first result and creates and logs
// nothing again; the same key with another request is 409. Logic: src/providers/calendar/execute.ts.
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { principal } from '../common.ts';
import { op } from '../op.ts';
import { idempotent, PreviewStatus, STATUS } from '../workspace/common.ts';
import { Instant, TimeZone } from './calendar-views.ts';

const IdempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
  .describe(
    'Idempotency key (or the Idempotency-Key header): the same key returns the first result for 24 hours and creates nothing again',
  );

const Check = z.object({ rule: z.string(), passed: z.boolean(), detail: z.string() });

export const executeCalendarEventOp = op({
  name: 'workspace.execute_calendar_event',
  summary: 'Create a calendar event under the workspace policy',
  description: [
    "Creates an event in the named calendar account, the team's only account, or the local calendar when none is connected.",
    'draft_only creates nothing and logs the proposal as a draft action; auto_send_safe creates only when the slot is free in the',
    'target calendar, starts in the future and every attendee passes the recipient rules replies use (not a role/no-reply address,',
    'not an inboxd domain, in allowRecipientDomains when set), else logs blocked with the reasons; full_auto creates unless a hard',
    'rule fails. With an idempotency key (body or Idempotency-Key header) a retry returns the first result.',
  ].join(' '),
  access: 'write',
  audit: false,
  http: { method: 'POST', path: '/v1/workspace/execute-calendar-event' },
  tool: {
    name: 'svc_workspace_execute_calendar_event',
    description: 'Create a calendar event under the workspace policy: created, drafted or blocked (conflict, past start), with checks.',
    annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: true },
  },
  input: z.strictObject({
    accountId: z
      .string()
      .max(64)
      .optional()
      .describe('Calendar account (pac_…) or "local"; default the only connected account, else the local calendar'),
    calendarId: z
      .string()
      .max(1000)
      .optional()
      .describe('A calendar of that account (CalDAV URL, Google calendar id); default its primary'),
    title: z.string().min(1).max(500).describe('Event title'),
    start: Instant.describe('Start, ISO 8601 with offset'),
    end: Instant.describe('End, ISO 8601 with offset (after start)'),
    timeZone: TimeZone.describe('IANA zone for the local times in the answer and the event (default UTC)'),
    attendees: z.array(z.email().max(320)).max(100).optional().describe('Attendee e-mail addresses'),
    description: z.string().max(10_000).optional().describe('Event description'),
    location: z.string().max(1000).optional().describe('Where it takes place (room, address or meeting link)'),
    idempotencyKey: IdempotencyKey.optional(),
  }),
  output: z.object({
    status: PreviewStatus,
    outcome: z
      .enum(['created', 'drafted', 'blocked'])
      .describe('created; drafted (draft_only: proposed, not created); blocked (a check failed)'),
    mode: z.enum(['draft_only', 'auto_send_safe', 'full_auto']),
    reasons: z.array(z.string()),
    checks: z.array(Check),
    accountId: z.string().describe('"local" or the account the event is (or would be) created in'),
    provider: z.string(),
    calendarId: z.string().nullable(),
    eventId: z.string().nullable().describe('The created event (null unless outcome is created)'),
    url: z.string().nullable(),
    event: z.object({
      title: z.string(),
      start: z.string(),
      end: z.string(),
      startLocal: z.string(),
      endLocal: z.string(),
      timeZone: z.string(),
      attendees: z.array(z.string()),
    }),
    conflicts: z.array(z.object({ title: z.string(), start: z.string(), end: z.string(), calendarId: z.string() })),
    actionId: z.string().describe('The workspace action logged (draft, blocked or sent)'),
    idempotencyKey: z.string().nullable(),
  }),
  async handler(ctx, input) {
    const p = principal(ctx);
    if (Date.parse(input.end) <= Date.parse(input.start))
      throw new AppError('validation_failed', 'end must be after start', { errors: [{ path: 'end', message: 'not after start' }] });
    const { idempotencyKey: _k, ...req } = input;
    return idempotent(
      ctx,
      {
        bodyKey: input.idempotencyKey,
        // Namespaced so a key used for execute-reply cannot replay a calendar answer (or the reverse).
        required: false,
        namespace: 'calendar:',
        request: { op: 'calendar_event', ...req },
        what: 'the event could not be created',
      },
      async (key) => ({ status: STATUS, ...(await ctx.services.calendar.executeEvent(p, req)), idempotencyKey: key }),
    );
  },
});

export const calendarExecOps = [executeCalendarEventOp];
