// The workspace's own tables (migration 015). Typed here rather than in src/store/schema.ts so the workspace stays
// one self-contained module; its repositories widen the store's Kysely handle to `WsDb` to include them.
import type { Kysely } from 'kysely';
import { randomBase62 } from '../lib/ids.ts';
import type { Database } from '../store/schema.ts';

export type PolicyMode = 'draft_only' | 'auto_send_safe' | 'full_auto';
export const POLICY_MODES: readonly PolicyMode[] = ['draft_only', 'auto_send_safe', 'full_auto'];

export interface PolicyRow {
  team_id: string;
  mode: PolicyMode;
  settings_json: string;
  updated_at: number;
  updated_by: string | null;
}

export interface ReminderRow {
  id: string;
  team_id: string;
  kind: string;
  inbox_id: string | null;
  thread_id: string | null;
  message_id: string | null;
  note: string;
  due_at: number;
  status: 'open' | 'completed' | 'dismissed' | 'snoozed';
  source: string;
  snoozed_until: number | null;
  created_at: number;
  completed_at: number | null;
}

export interface ActionRow {
  id: string;
  team_id: string;
  type: string;
  inbox_id: string | null;
  thread_id: string | null;
  message_id: string | null;
  reminder_id: string | null;
  draft_id: string | null;
  actor_key_id: string | null;
  note: string | null;
  reasons_json: string;
  at: number;
  seq: number;
}

export interface DraftRow {
  id: string;
  team_id: string;
  inbox_id: string | null;
  message_id: string | null;
  thread_id: string | null;
  to_address: string | null;
  subject: string;
  text: string;
  status: 'pending' | 'sent' | 'dismissed' | 'snoozed';
  reasons_json: string;
  snoozed_until: number | null;
  created_at: number;
  decided_at: number | null;
}

export interface IdempotencyRow {
  team_id: string;
  key: string;
  request_hash: string;
  state: 'running' | 'done';
  status: number | null;
  response_json: string | null;
  created_at: number;
  expires_at: number;
}

export interface SendRow {
  team_id: string;
  source_message_id: string;
  state: string;
  sent_message_id: string | null;
  thread_id: string | null;
  at: number;
}

export interface MonitorRow {
  id: string;
  team_id: string;
  name: string;
  kind: string;
  params_json: string;
  interval_seconds: number;
  enabled: number;
  next_run_at: number;
  last_run_at: number | null;
  last_status: string | null;
  created_at: number;
  created_by: string | null;
}

export interface MonitorRunRow {
  id: string;
  monitor_id: string;
  team_id: string;
  at: number;
  trigger: string;
  status: string;
  findings_json: string;
  seq: number;
}

export type WorkspaceTables = {
  workspace_policies: PolicyRow;
  workspace_reminders: ReminderRow;
  workspace_actions: ActionRow;
  workspace_drafts: DraftRow;
  workspace_idempotency: IdempotencyRow;
  workspace_sends: SendRow;
  workspace_monitors: MonitorRow;
  workspace_monitor_runs: MonitorRunRow;
};

export type WsDb = Kysely<Database & WorkspaceTables>;

/** Workspace ids: `rem_`, `act_` (CONTRACT §3) and the workspace's own `drf_`, `mon_`, `mrn_`. */
export function wsId(prefix: 'rem' | 'act' | 'drf' | 'mon' | 'mrn'): string {
  return `${prefix}_${randomBase62(20)}`;
}

let lastSeq = 0;
/** Ordering key for append-only rows: time-based so it survives restarts, strictly increasing within the process. */
export function nextSeq(now: number): number {
  lastSeq = Math.max(now * 1000, lastSeq + 1);
  return lastSeq;
}

export const iso = (ms: number): string => new Date(ms).toISOString();
