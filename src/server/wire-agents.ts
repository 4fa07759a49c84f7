// Wiring of the agent layer: verify and runs, the AI service, the workspace and its monitors, and the mailbox and
// calendar providers. Split from src/server/wire.ts (the mail path) so each reads in one screen; same rules: narrow
// dependencies, everything built once here.
import type { Kysely } from 'kysely';
import { RehearsalStore } from '../agent/rehearsal.ts';
import { RehearsalRepo } from '../agent/rehearsal-repo.ts';
import { AgentService } from '../agent/service.ts';
import { AiService } from '../ai/service.ts';
import type { AccessService } from '../auth/access.ts';
import type { AuditLog } from '../auth/audit-log.ts';
import type { SharedWindows } from '../auth/cluster-limits.ts';
import type { Sandbox } from '../budget/sandbox.ts';
import type { Config } from '../config.ts';
import type { ServedDomains } from '../domains/served.ts';
import type { InboxService } from '../inboxes/service.ts';
import type { MailWaits } from '../inboxes/wait.ts';
import type { Ingest } from '../ingest/ingest.ts';
import type { IngestWriter } from '../ingest/writer.ts';
import type { Clock } from '../lib/clock.ts';
import type { Sealer } from '../lib/sealed.ts';
import type { Logger } from '../log.ts';
import type { OutboundService } from '../outbound/service.ts';
import { workspaceMailer } from '../outbound/workspace-mailer.ts';
import { ProviderAccounts } from '../providers/accounts.ts';
import { CalendarService } from '../providers/calendar/service.ts';
import { MailboxService } from '../providers/mailbox/service.ts';
import { RunService } from '../runs/service.ts';
import type { SearchService } from '../search/service.ts';
import type { BlobStore } from '../store/blobs.ts';
import type { Dialect } from '../store/dialect.ts';
import type { KeyRepo } from '../store/keys.ts';
import type { MessageRepo } from '../store/messages.ts';
import type { Database } from '../store/schema.ts';
import type { ThreadService } from '../threads/service.ts';
import { MonitorService } from '../workspace/monitor-service.ts';
import { monitorLimits } from '../workspace/monitors.ts';
import { WorkspaceService } from '../workspace/service.ts';
import type { Site } from './wire.ts';

export interface AgentLayerDeps {
  db: Kysely<Database>;
  dialect: Dialect;
  blobs: BlobStore;
  /** On a cluster (PostgreSQL): the shared limit windows, so the rehearsal page's signups live in the database. */
  windows: SharedWindows | null;
  messages: MessageRepo;
  writer: IngestWriter;
  ingest: Ingest;
  inboxes: InboxService;
  waits: MailWaits;
  threads: ThreadService;
  search: SearchService;
  outbound: OutboundService;
  served: ServedDomains;
  sealer: Sealer;
  sandbox: Sandbox;
  keys: KeyRepo;
  access: AccessService;
  auditLog: AuditLog;
  site: Site;
  clock: Clock;
  log: Logger;
  shutdown: AbortSignal;
}

export function wireAgents(config: Config, d: AgentLayerDeps) {
  // agent: verify and open, extraction, simulated mail, the rehearsal page, the self-test.
  const rehearsals = new RehearsalStore(() => d.clock.now(), d.windows ? { repo: new RehearsalRepo(d.db), windows: d.windows } : null);
  const agent = new AgentService({
    db: d.db,
    messages: d.messages,
    writer: d.writer,
    ingest: d.ingest,
    inboxes: d.inboxes,
    waits: d.waits,
    baseUrl: () => d.site.baseUrl,
    now: () => d.clock.now(),
    shutdown: d.shutdown,
    maxMessageBytes: () => config.maxMessageBytes,
    rehearsals,
    served: d.served,
  });
  // runs: agent runs over the inboxes and waits; svc_issue_access mints its tokens and audits them.
  const runs = new RunService({
    db: d.db,
    inboxes: d.inboxes,
    waits: d.waits,
    now: () => d.clock.now(),
    keys: d.keys,
    tokens: d.access,
    audit: d.auditLog,
  });
  // ai: the model chain (--models) for structured extraction; caller schemas and the built-in engine in the sandbox.
  const ai = new AiService({
    ...(config.models ? { models: config.models } : {}),
    timeoutMs: config.modelTimeoutMs,
    maxInputChars: config.modelMaxInputChars,
    sandbox: d.sandbox,
    schemaBudgetMs: config.schemaBudgetMs,
    schemaLimits: { depth: config.schemaMaxDepth },
    env: { INBOXD_OPENAI_API_KEY: config.openaiApiKey, INBOXD_ANTHROPIC_API_KEY: config.anthropicApiKey },
  });
  for (const warning of ai.warnings()) d.log.warn(warning);
  // workspace: replies go out through the outbound service, the model chain is the AI service's; monitors are
  // started and stopped as a component (src/server/components.ts).
  const mailer = workspaceMailer({
    inboxes: d.inboxes,
    messages: d.messages,
    outbound: d.outbound,
    scopedDelivery: config.smtpAuth === 'required',
  });
  const workspace = new WorkspaceService({
    db: d.db,
    now: () => d.clock.now(),
    inboxes: d.inboxes,
    messages: d.messages,
    served: d.served,
    relayConfigured: () => d.outbound.relayConfigured,
    mailer,
    ai: () => ai,
    engine: {
      timeoutMs: config.modelTimeoutMs ?? 30_000,
      maxInputChars: config.modelMaxInputChars ?? 20_000,
      keys: {
        ...(config.openaiApiKey ? { openai: config.openaiApiKey } : {}),
        ...(config.anthropicApiKey ? { anthropic: config.anthropicApiKey } : {}),
      },
    },
  });
  const monitors = new MonitorService({
    db: d.db,
    dialect: d.dialect,
    now: () => d.clock.now(),
    log: d.log,
    inboxes: d.inboxes,
    limits: monitorLimits(config),
    maxPerTeam: config.maxMonitorsPerTeam,
    shutdown: d.shutdown,
  });
  // providers: connected accounts (credentials sealed), the mailbox and calendar services over them.
  const providers = new ProviderAccounts({ db: d.db, sealer: d.sealer, now: () => d.clock.now() });
  const mailbox = new MailboxService({
    db: d.db,
    now: () => d.clock.now(),
    providers,
    gmail: { apiBase: config.gmailApiBase, tokenUrl: config.googleTokenUrl },
    baseUrl: () => d.site.baseUrl,
    local: { inboxes: d.inboxes, threads: d.threads, messages: d.messages, search: d.search },
    workspace,
  });
  const calendar = new CalendarService({
    db: d.db,
    blobs: d.blobs,
    sandbox: d.sandbox,
    now: () => d.clock.now(),
    providers,
    sealer: d.sealer,
    served: d.served,
    workspace,
    settings: {
      readBudgetMs: config.calendarReadBudgetMs,
      maxInstances: config.calendarMaxInstances,
      maxEventInstances: config.calendarMaxEventInstances,
      maxRuleSteps: config.calendarMaxRuleSteps,
      googleCalendarApiBase: config.googleCalendarApiBase,
      googleTokenUrl: config.googleTokenUrl,
    },
  });
  return { rehearsals, agent, runs, ai, workspace, monitors, providers, mailbox, calendar };
}
