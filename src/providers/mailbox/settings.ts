// Mailbox settings per team and account (`local` or pac_…), migration 018: triage rules that override the built-in
// classification (sender address or domain, subject words → category), the digest window, a signature appended to
// drafts, and the time zone digests are told in. The schemas the operations validate with, and the settings'
// repository (MailboxSettingsRepo), used by the mailbox service.
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../../store/schema.ts';

export const CATEGORIES = ['needs_reply', 'waiting', 'fyi', 'newsletter', 'verification', 'receipt', 'notification'] as const;
export type Category = (typeof CATEGORIES)[number];

const NoControl = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), 'must not contain control characters');

export const TriageRule = z
  .strictObject({
    from: NoControl(320).optional().describe('Sender address (exact, case-insensitive), e.g. boss@example.com'),
    domain: NoControl(253)
      .regex(/^[a-z0-9.-]+$/i, 'a domain such as example.com')
      .optional()
      .describe('Sender domain; also matches its subdomains, e.g. example.com'),
    subjectContains: NoControl(200).optional().describe('Words the subject contains (case-insensitive)'),
    category: z.enum(CATEGORIES).describe('The category a matching thread gets'),
    reason: z.string().max(200).optional().describe('Why, shown as the triage reason'),
  })
  .refine((r) => r.from !== undefined || r.domain !== undefined || r.subjectContains !== undefined, {
    message: 'a rule needs at least one of from, domain, subjectContains',
  });
export type TriageRule = z.infer<typeof TriageRule>;

export const Timezone = z
  .string()
  .min(1)
  .max(64)
  .refine((tz) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  }, 'not an IANA time zone (e.g. Europe/Berlin, UTC)')
  .describe('IANA time zone for digests, e.g. Europe/Berlin');

export const MailboxSettings = z.object({
  triageRules: z.array(TriageRule).max(100).describe('Rules checked first, in order; the first match decides the category'),
  digestWindowHours: z
    .number()
    .int()
    .min(1)
    .max(24 * 31)
    .describe('Default look-back of svc_gmail_digest, in hours'),
  signature: z.string().max(2000).nullable().describe('Appended to drafts created by svc_workspace_execute_gmail_draft'),
  timezone: Timezone,
});
export type MailboxSettings = z.infer<typeof MailboxSettings>;

export const DEFAULT_SETTINGS: MailboxSettings = { triageRules: [], digestWindowHours: 24, signature: null, timezone: 'UTC' };

interface SettingsRow {
  team_id: string;
  account_id: string;
  settings_json: string;
  updated_at: number;
  updated_by: string | null;
}
type Db = Kysely<Database & { mailbox_settings: SettingsRow }>;

export type StoredSettings = MailboxSettings & { updatedAt: string | null };

/** The one home of the `mailbox_settings` queries. */
export class MailboxSettingsRepo {
  private readonly db: Db;

  constructor(db: Kysely<Database>) {
    this.db = db.withTables<{ mailbox_settings: SettingsRow }>();
  }

  /** The account's settings; the defaults (updatedAt null) until set. */
  async get(teamId: string, accountId: string): Promise<StoredSettings> {
    const r = await this.db
      .selectFrom('mailbox_settings')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (!r) return { ...DEFAULT_SETTINGS, updatedAt: null };
    const parsed = MailboxSettings.partial().safeParse(JSON.parse(r.settings_json));
    return { ...DEFAULT_SETTINGS, ...(parsed.success ? parsed.data : {}), updatedAt: new Date(r.updated_at).toISOString() };
  }

  /** Fields of `patch` left undefined keep their value. */
  async put(teamId: string, accountId: string, patch: Partial<MailboxSettings>, by: string, now: number): Promise<StoredSettings> {
    const { updatedAt: _u, ...current } = await this.get(teamId, accountId);
    const next = MailboxSettings.parse({ ...current, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) });
    const json = JSON.stringify(next);
    await this.db
      .insertInto('mailbox_settings')
      .values({ team_id: teamId, account_id: accountId, settings_json: json, updated_at: now, updated_by: by })
      .onConflict((oc) => oc.columns(['team_id', 'account_id']).doUpdateSet({ settings_json: json, updated_at: now, updated_by: by }))
      .execute();
    return { ...next, updatedAt: new Date(now).toISOString() };
  }

  async drop(teamId: string, accountId: string): Promise<void> {
    await this.db.deleteFrom('mailbox_settings').where('team_id', '=', teamId).where('account_id', '=', accountId).execute();
  }
}
