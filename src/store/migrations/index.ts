// Ordered migrations, listed statically so the single-executable bundle carries them (no folder scan at run time).
// Never edit a migration that has shipped: add the next file.
// Two files are numbered 003 (003_access, 003_events: written in parallel) and there is no 008; both shipped, and a
// migration's name is its identity in every existing database, so they stay as they are. Kysely applies them sorted
// by name (003_access before 003_events), and a new migration takes the next free number (021 onwards).
import type { Migration } from 'kysely/migration';
import * as m001 from './001_foundation.ts';
import * as m002 from './002_mail.ts';
import * as m003a from './003_access.ts';
import * as m003e from './003_events.ts';
import * as m004 from './004_content.ts';
import * as m005 from './005_verify.ts';
import * as m006 from './006_webhooks.ts';
import * as m007 from './007_hardening.ts';
import * as m009 from './009_runs.ts';
import * as m010 from './010_segments.ts';
import * as m011 from './011_outbound.ts';
import * as m012 from './012_threads.ts';
import * as m013 from './013_domains.ts';
import * as m014 from './014_search.ts';
import * as m015 from './015_workspace.ts';
import * as m016 from './016_providers.ts';
import * as m017 from './017_calendar.ts';
import * as m018 from './018_mailbox.ts';
import * as m019 from './019_calendar_zones.ts';
import * as m020 from './020_content_inbox_index.ts';
import * as m021 from './021_inline_parts.ts';
import * as m022 from './022_faults.ts';
import * as m023 from './023_seen.ts';
import * as m024 from './024_label_rules.ts';
import * as m025 from './025_check_reports.ts';
import * as m026 from './026_session_facts.ts';
import * as m027 from './027_mcp_sessions.ts';
import * as m028 from './028_cluster_limits.ts';
import * as m029 from './029_instances.ts';

export const MIGRATIONS: Record<string, Migration> = {
  '001_foundation': m001,
  '002_mail': m002,
  '003_access': m003a,
  '003_events': m003e,
  '004_content': m004,
  '005_verify': m005,
  '006_webhooks': m006,
  '007_hardening': m007,
  '009_runs': m009,
  '010_segments': m010,
  '013_domains': m013,
  '015_workspace': m015,
  '011_outbound': m011,
  '012_threads': m012,
  '014_search': m014,
  '016_providers': m016,
  '018_mailbox': m018,
  '017_calendar': m017,
  '019_calendar_zones': m019,
  '020_content_inbox_index': m020,
  '021_inline_parts': m021,
  '022_faults': m022,
  '023_seen': m023,
  '024_label_rules': m024,
  '025_check_reports': m025,
  '026_session_facts': m026,
  '027_mcp_sessions': m027,
  '028_cluster_limits': m028,
  '029_instances': m029,
};
