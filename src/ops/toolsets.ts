// Toolsets: named groups of MCP tools, so an agent loads only the definitions it uses (an agent that signs up to
// services needs six tools, not eighty). The five groups of the spec's tool table cover every tool once; the finer
// sets are subsets of them. The data lives here, beside the operations, because discovery (GET /v1) and /mcp/auth
// list it; choosing the sets of a connection is src/mcp/toolsets.ts.
import { z } from 'zod';

/** The service presets, listed once in the MCP server's instructions instead of in each tool that takes `service`. */
export { PRESET_IDS as SERVICE_PRESETS } from '../mail/presets.ts';

export interface Toolset {
  name: string;
  /** One line for discovery (GET /v1, /mcp/auth). */
  description: string;
  /** A group of the spec's tool table (every tool is in exactly one group) or a finer set inside one. */
  kind: 'group' | 'set';
  tools: readonly string[];
}

const INBOXES = [
  'svc_create_inbox',
  'svc_list_inboxes',
  'svc_get_inbox',
  'svc_delete_inbox',
  'svc_cleanup_inboxes',
  'svc_list_messages',
  'svc_wait_for_message',
  'svc_get_raw_message',
  'svc_list_attachments',
  'svc_get_attachment',
  'svc_mark_message',
  'svc_diagnose_inbox',
  'svc_check_email',
];
const VERIFY = [
  'svc_verify_signup',
  'svc_create_inbox',
  'svc_wait_and_extract',
  'svc_check_email',
  'svc_simulate_message',
  'svc_delete_inbox',
];
const SEARCH = ['svc_search_messages', 'svc_list_threads', 'svc_extract_structured', 'svc_extract_verification'];
const SEND = ['svc_send_message', 'svc_release_message'];
const CHECKS = ['svc_check_html', 'svc_check_message', 'svc_explain_finding', 'svc_render_message', 'svc_compare_renderings'];
const LABELS = ['svc_create_label_rule', 'svc_list_label_rules', 'svc_update_label_rule', 'svc_delete_label_rule'];
const FAULTS = ['svc_set_fault_rules', 'svc_set_inbox_fault_rules', 'svc_list_fault_rules', 'svc_get_inbox_timeline'];
const DOMAINS = ['svc_add_domain', 'svc_list_domains', 'svc_verify_domain'];
const MONITORS = [
  'svc_workspace_list_monitors',
  'svc_workspace_create_monitor',
  'svc_workspace_delete_monitor',
  'svc_workspace_run_monitor',
  'svc_workspace_list_monitor_runs',
];
const REMINDERS = [
  'svc_workspace_suggest_reminders',
  'svc_workspace_create_reminder',
  'svc_workspace_list_reminders',
  'svc_workspace_complete_reminder',
  'svc_workspace_log_action',
  'svc_workspace_list_actions',
];

const union = (...lists: readonly string[][]): string[] => [...new Set(lists.flat())];

/** Every toolset, groups first, in the order discovery lists them. */
export const TOOLSETS: readonly Toolset[] = [
  {
    name: 'runs',
    kind: 'group',
    description: 'Access and agent runs: mint tokens, plan, start, step and report runs',
    tools: [
      'svc_issue_access',
      'svc_plan_next',
      'svc_start_run',
      'svc_next_run',
      'svc_report_run',
      'svc_suggest_preset',
      'svc_get_run_session',
      'svc_get_run_timeline',
      'svc_patch_run_session',
    ],
  },
  {
    name: 'mail',
    kind: 'group',
    description: 'Inboxes and mail: inboxes, waits, verification, search, sending, checks, labels, faults, domains',
    tools: union(VERIFY, INBOXES, SEARCH, SEND, CHECKS, LABELS, FAULTS, DOMAINS),
  },
  {
    name: 'workspace',
    kind: 'group',
    description: 'Workspace: summaries, drafts, reminders, policy, policy-gated execution and monitors',
    tools: union(
      [
        'svc_workspace_summarize',
        'svc_workspace_draft_reply',
        'svc_workspace_get_policy',
        'svc_workspace_set_policy',
        'svc_workspace_model_status',
        'svc_workspace_rules_status',
        'svc_workspace_rules_evaluate',
        'svc_workspace_execute_reply',
        'svc_workspace_execute_gmail_draft',
        'svc_workspace_execute_calendar_event',
      ],
      REMINDERS,
      MONITORS,
    ),
  },
  {
    name: 'mailbox',
    kind: 'group',
    description: 'Mailbox provider (Gmail): connect, list and read threads, triage, digest, settings',
    tools: [
      'svc_gmail_status',
      'svc_gmail_connect',
      'svc_gmail_list_accounts',
      'svc_gmail_list_threads',
      'svc_gmail_read_thread',
      'svc_gmail_triage',
      'svc_gmail_digest',
      'svc_gmail_get_settings',
      'svc_gmail_set_settings',
    ],
  },
  {
    name: 'calendar',
    kind: 'group',
    description: 'Calendar: connect, events, availability, conflicts, meeting suggestions, agenda',
    tools: [
      'svc_calendar_status',
      'svc_calendar_connect',
      'svc_calendar_list_accounts',
      'svc_calendar_list_events',
      'svc_calendar_availability',
      'svc_calendar_check_conflicts',
      'svc_calendar_suggest_meeting',
      'svc_calendar_agenda',
    ],
  },
  { name: 'verify', kind: 'set', description: 'Sign up to a service: an address, then its code or link', tools: VERIFY },
  { name: 'inboxes', kind: 'set', description: 'Create, read, wait on and delete inboxes and their messages', tools: INBOXES },
  { name: 'search', kind: 'set', description: 'Search mail, list threads, extract fields and codes', tools: SEARCH },
  { name: 'send', kind: 'set', description: 'Send mail from an inbox and release held mail', tools: SEND },
  {
    name: 'checks',
    kind: 'set',
    description: 'Check a message or HTML for client compatibility and problems; render it to PNG',
    tools: CHECKS,
  },
  { name: 'labels', kind: 'set', description: 'Rules that label arriving mail', tools: LABELS },
  { name: 'faults', kind: 'set', description: 'Make the SMTP server misbehave on purpose, and see what fired', tools: FAULTS },
  { name: 'domains', kind: 'set', description: 'Custom sending domains (unscoped admin key)', tools: DOMAINS },
  { name: 'reminders', kind: 'set', description: 'Workspace reminders, follow-ups and the actions log', tools: REMINDERS },
  { name: 'monitors', kind: 'set', description: 'Workspace monitors and their runs', tools: MONITORS },
];

/** Every toolset by name; `all` is accepted as a name for every tool. */
export const TOOLSET_BY_NAME = new Map(TOOLSETS.map((t) => [t.name, t]));
export const ALL = 'all';

/**
 * The toolsets that hold `toolName`, finest first (a set before its group); `other` for a tool no group lists (a
 * tool added without a toolset: still served, and test/unit/mcp-toolsets.test.ts fails until it is placed).
 */
export function toolsetOf(toolName: string): string[] {
  const sets = TOOLSETS.filter((t) => t.tools.includes(toolName));
  if (sets.length === 0) return ['other'];
  return [...sets.filter((t) => t.kind === 'set'), ...sets.filter((t) => t.kind === 'group')].map((t) => t.name);
}

/** The toolsets as discovery lists them: each with the tools this server has (and `other` for unplaced tools). */
export function toolsetListing(toolNames: readonly string[]): Array<Omit<Toolset, 'tools'> & { tools: string[] }> {
  const sets = TOOLSETS.map((t) => ({ ...t, tools: t.tools.filter((n) => toolNames.includes(n)) }));
  const other = toolNames.filter((n) => !TOOLSETS.some((t) => t.tools.includes(n)));
  return other.length ? [...sets, { name: 'other', kind: 'group', description: 'Tools not placed in a toolset yet', tools: other }] : sets;
}

/** How a toolset is shown by discovery and /mcp/auth. */
export const ToolsetView = z.object({
  name: z.string(),
  kind: z.enum(['group', 'set']).describe('group: one of the spec’s five tool groups (every tool is in one); set: a finer subset'),
  description: z.string(),
  tools: z.array(z.string()),
});
