// What an operation handler can reach: the domain services, wired once by src/server/wire.ts.

import type { RehearsalStore } from './agent/rehearsal.ts';
import type { AgentService } from './agent/service.ts';
import type { AiService } from './ai/service.ts';
import type { AccessService } from './auth/access.ts';
import type { AccountService } from './auth/account.ts';
import type { AuditLog } from './auth/audit-log.ts';
import type { KeyAuth } from './auth/keys.ts';
import type { RateLimiter } from './auth/rate-limit.ts';
import type { CheckService } from './checks/service.ts';
import type { ClusterService } from './cluster/service.ts';
import type { Config } from './config.ts';
import type { ConsoleService } from './console/service.ts';
import type { ServedDomains } from './domains/served.ts';
import type { DomainService } from './domains/service.ts';
import type { CallbackService } from './events/callbacks.ts';
import type { InboundWebhooks } from './events/inbound.ts';
import type { EventStreams } from './events/sse.ts';
import type { FaultService } from './faults/service.ts';
import type { MessageService } from './inboxes/messages.ts';
import type { InboxService } from './inboxes/service.ts';
import type { MailWaits } from './inboxes/wait.ts';
import type { LabelRuleService } from './labels/service.ts';
import type { Clock } from './lib/clock.ts';
import type { Logger } from './log.ts';
import type { Metrics } from './metrics/metrics.ts';
import type { OutboundService } from './outbound/service.ts';
import type { CalendarService } from './providers/calendar/service.ts';
import type { MailboxService } from './providers/mailbox/service.ts';
import type { RenderService } from './render/service.ts';
import type { RunService } from './runs/service.ts';
import type { SearchService } from './search/service.ts';
import type { StorageHealth } from './store/health.ts';
import type { ThreadService } from './threads/service.ts';
import type { MonitorService } from './workspace/monitor-service.ts';
import type { WorkspaceService } from './workspace/service.ts';

export interface Services {
  config: Config;
  /** The mail domains served: --domain plus verified custom domains (CONTRACT §10). */
  served: ServedDomains;
  /** Custom domains: records, DNS verification, DKIM keys (`dkimFor`) (CONTRACT §10). */
  domains: DomainService;
  log: Logger;
  clock: Clock;
  /** /health: the database answers, the data dir has room and can be written, the bucket answers. */
  storageHealth: StorageHealth;
  keyAuth: KeyAuth;
  access: AccessService;
  /** The caller's team, its keys, usage and billing (src/auth/account.ts). */
  account: AccountService;
  /** The team's audit log: recorded by the pipeline, read by GET /v1/audit, pruned by the sweep. */
  auditLog: AuditLog;
  rateLimiter: RateLimiter;
  rehearsals: RehearsalStore;
  /** Verify and open, extraction without waiting, simulated mail and the self-test (src/agent/). */
  agent: AgentService;
  /** Agent runs: the run document, its steps, plan, timeline and run-scoped tokens (src/runs/). */
  runs: RunService;
  inboxes: InboxService;
  /** Fault rules: set and listed through the API, asked by the SMTP listener at each stage (src/faults/). */
  faults: FaultService;
  /** Label rules: CRUD, and the compiled rules ingest evaluates on arriving mail (src/labels/). */
  labelRules: LabelRuleService;
  /** Long-poll waits for mail: the waiter caps, the wake queue, one read and one JSON per wake-up (src/inboxes/wait.ts). */
  waits: MailWaits;
  /** Reads, raw bytes, attachments and delete of an inbox's messages (src/inboxes/messages.ts). */
  inboxMessages: MessageService;
  /** Threads of inboxes: reads, claim and delete upkeep. */
  threads: ThreadService;
  /** Full-text and semantic search (src/search/). */
  search: SearchService;
  /** SSE streams of inboxes. */
  eventStreams: EventStreams;
  /** Message checks (issue 28): the engine over stored and supplied mail, reports, on-arrival checks (src/checks/). */
  checks: CheckService;
  /** PNG renderings of mail by chromium under a budget (src/render/). */
  render: RenderService;
  /** Callback delivery worker. */
  callbacks: CallbackService;
  /** Mail from providers' inbound webhooks (POST /webhooks/:provider), with its replay tokens. */
  inboundWebhooks: InboundWebhooks;
  /** The browser console's aggregates: dashboard counts and an inbox's page (src/console/). */
  console: ConsoleService;
  /** The cluster view (GET /v1/cluster): this instance's heartbeat and every instance's row (src/cluster/). */
  cluster: ClusterService;
  /** Prometheus metrics of this server (GET /metrics). */
  metrics: Metrics;
  /** Send and reply: local delivery, the outbox and its relay worker (CONTRACT §9). */
  outbound: OutboundService;
  /** Structured extraction over the model chain, model status and probes (src/ai/). */
  ai: AiService;
  /** Public base URL without a trailing slash (CONTRACT §1 --base-url). */
  baseUrl(): string;
  /** STARTTLS of the mail listeners, for discovery: where the certificate comes from, its SHA-256 fingerprint, PEM. */
  smtpTls: { source: 'auto' | 'files'; fingerprint: string; validTo: string; certificate: string; requireTls: boolean } | null;
  startedAt: number;
  /** The workspace (CONTRACT §13): policy, drafts, execute-reply, reminders, actions, today (src/workspace/). */
  workspace: WorkspaceService;
  /** Workspace monitors: their CRUD, runs on demand and the scheduler (started and stopped by the server). */
  monitors: MonitorService;
  /** Mailboxes for the svc_gmail_* tools: the local one and connected IMAP / Gmail accounts (src/providers/mailbox/). */
  mailbox: MailboxService;
  /** Calendars: the local invitation calendar and connected CalDAV / Google accounts (src/providers/calendar/). */
  calendar: CalendarService;
  /** Aborted when the server begins to stop: long waits and streams end with 503 instead of a cut connection. */
  shutdown: AbortSignal;
}
