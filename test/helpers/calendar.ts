// Calendar test fixtures: the server clock's epoch, the calendar tool names, iCalendar builders and invitations sent
// over real SMTP. MCP clients come from mcp-tools.ts (callOk/callErr are re-exported for the calendar tests).
import type { TestServer } from './server.ts';
import { sendMail } from './smtp.ts';

export const SECRET_KEY = 'a'.repeat(64);
/** The server's clock starts here and runs: the fixtures (DST ends 25 Oct / 1 Nov 2026) are in its future. */
export const EPOCH = Date.parse('2026-10-01T00:00:00Z');

export const CALENDAR_TOOLS = [
  'svc_calendar_status',
  'svc_calendar_connect',
  'svc_calendar_list_accounts',
  'svc_calendar_list_events',
  'svc_calendar_availability',
  'svc_calendar_check_conflicts',
  'svc_calendar_suggest_meeting',
  'svc_calendar_agenda',
];

export { callErr, callOk } from './mcp-tools.ts';

export const ics = (body: string, method = '') =>
  `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n${method ? `METHOD:${method}\r\n` : ''}${body.trim().split('\n').join('\r\n')}\r\nEND:VCALENDAR\r\n`;

export const vevent = (uid: string, start: string, end: string, summary: string, extra = '') =>
  `BEGIN:VEVENT\nUID:${uid}\nDTSTAMP:20261001T000000Z\nDTSTART${start}\nDTEND${end}\nSUMMARY:${summary}\n${extra ? `${extra}\n` : ''}END:VEVENT`;

/** Sends an invitation over real SMTP (nodemailer's icalEvent: a text/calendar alternative part). */
export async function invite(s: TestServer, to: string, method: string, calendar: string, subject = 'Invitation') {
  await sendMail(s.server.smtpPort, {
    from: 'Organizer <organizer@example.com>',
    to,
    subject,
    text: 'You are invited.',
    icalEvent: { method, content: calendar },
  });
}
