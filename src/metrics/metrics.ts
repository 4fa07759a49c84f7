// The server's Prometheus metrics (GET /metrics). One Metrics per running server, with its own prom-client registry:
// tests run several servers in one process, and prom-client's global default registry would mix them.
//
// Hot paths (an SMTP connection, a stored message, an HTTP request, a callback attempt) only bump plain numbers held
// here; the prom-client metrics copy them in their collect(), which runs at scrape time. Gauges (open connections,
// waits, SSE clients, store size, outbound states) are read from their owners at scrape time too.
import { Counter, Gauge, Registry } from 'prom-client';
import { VERSION } from '../version.ts';
import { LatencyHistogram } from './histogram.ts';
import type { StoreSize } from './store-size.ts';

/** Why the SMTP listener refused something: one per refusing reply. A fixed set, so label cardinality is bounded. */
export const SMTP_REJECTIONS = [
  'relay_denied',
  'out_of_scope',
  'limit_reached',
  'too_large',
  'auth_failed',
  'storage_full',
  'storage_error',
  'session_limit',
] as const;
export type SmtpRejection = (typeof SMTP_REJECTIONS)[number];

/** How a callback attempt ended: `retry` is a failed attempt with another one due; the rest are final. */
export const CALLBACK_OUTCOMES = ['delivered', 'retry', 'failed', 'gone', 'refused'] as const;
export type CallbackOutcome = (typeof CALLBACK_OUTCOMES)[number];

/** Recipient delivery states of sent mail (CONTRACT §9); a source may report more. */
export const OUTBOUND_STATES = ['queued', 'sent', 'failed'] as const;

/** Seconds from the end of DATA to the message being stored durably. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const REJECTION_INDEX = Object.fromEntries(SMTP_REJECTIONS.map((r, i) => [r, i])) as Record<SmtpRejection, number>;
const OUTCOME_INDEX = Object.fromEntries(CALLBACK_OUTCOMES.map((r, i) => [r, i])) as Record<CallbackOutcome, number>;

/** What the SMTP listener reports. Each call bumps a number; nothing is allocated. */
export class SmtpMetrics {
  connections = 0;
  messages = 0;
  bytes = 0;
  readonly rejections = new Float64Array(SMTP_REJECTIONS.length);
  readonly latency = new LatencyHistogram(
    'inboxd_ingest_duration_seconds',
    'Seconds from the end of an SMTP DATA transfer until the message is stored durably (the 250 reply)',
    LATENCY_BUCKETS,
  );
  connected(): void {
    this.connections++;
  }
  stored(bytes: number, seconds: number): void {
    this.messages++;
    this.bytes += bytes;
    this.latency.observe(seconds);
  }
  rejected(reason: SmtpRejection): void {
    this.rejections[REJECTION_INDEX[reason]]!++;
  }
}

/** Gauges read at scrape time from the parts that own them; wired in src/server/wire.ts. Unset ones are left out. */
export interface MetricSources {
  smtpConnections?: () => number;
  waits?: () => number;
  sseClients?: () => number;
  callbacksPending?: () => Promise<number>;
  /** Outbound recipients per delivery state (queued, sent, failed): wired by the outbound mail service. */
  outbound?: () => Promise<Record<string, number>> | Record<string, number>;
  storeSize?: () => Promise<StoreSize>;
  /** Faults fired by fault rules and shortcuts, keyed `<stage> <action>` (src/faults/). */
  faultsFired?: () => ReadonlyMap<string, number>;
  /** Ingest worker threads running now (src/ingest/analyzer.ts). */
  ingestWorkers?: () => number;
}

/** The operation label of a request: set by the route that answered it; /mcp and unrouted paths get fixed names. */
export function operationLabel(state: { operation?: unknown }, path: string): string {
  if (typeof state.operation === 'string') return state.operation;
  return path === '/mcp' || path.startsWith('/mcp/') ? 'mcp' : 'none';
}

export class Metrics {
  readonly registry = new Registry();
  readonly smtp = new SmtpMetrics();
  readonly sources: MetricSources = {};
  private readonly callbackOutcomes = new Float64Array(CALLBACK_OUTCOMES.length);
  /** Operation name → status → requests. Operation names come from the registry, never from the request path. */
  private readonly http = new Map<string, Map<number, number>>();
  /** `check severity` → findings reported by message checks (inboxd_check_findings_total). */
  private readonly checkFindings = new Map<string, number>();

  /**
   * `instance`: this process's instance id (the cluster view's, GET /v1/cluster), put on every series as the
   * `inboxd_instance` label, so series of instances scraped through one address (a balancer) stay apart and
   * `sum without (inboxd_instance)` gives the cluster's figure.
   */
  constructor(opts: { instance?: string } = {}) {
    const registers = [this.registry];
    if (opts.instance) this.registry.setDefaultLabels({ inboxd_instance: opts.instance });
    const smtp = this.smtp;
    const sources = this.sources;
    const callbackOutcomes = this.callbackOutcomes;
    const http = this.http;
    const checkFindings = this.checkFindings;
    new Counter({
      name: 'inboxd_check_findings_total',
      help: 'Findings of message checks (issue 28) by check and severity, cached reports not counted again',
      labelNames: ['check', 'severity'],
      registers,
      collect() {
        this.reset();
        for (const [k, n] of checkFindings) {
          const [check, severity] = k.split(' ') as [string, string];
          this.inc({ check, severity }, n);
        }
      },
    });
    new Gauge({
      name: 'inboxd_build_info',
      help: 'Always 1; the version of the running inboxd as a label',
      labelNames: ['version'],
      registers,
    }).set({ version: VERSION }, 1);
    new Counter({
      name: 'inboxd_smtp_connections_total',
      help: 'SMTP connections accepted since the start',
      registers,
      collect() {
        this.reset();
        this.inc(smtp.connections);
      },
    });
    gauge('inboxd_smtp_connections_open', 'SMTP connections open now', () => sources.smtpConnections?.());
    new Counter({
      name: 'inboxd_smtp_messages_accepted_total',
      help: 'Messages accepted over SMTP (stored and answered 250)',
      registers,
      collect() {
        this.reset();
        this.inc(smtp.messages);
      },
    });
    new Counter({
      name: 'inboxd_smtp_bytes_accepted_total',
      help: 'Bytes of the messages accepted over SMTP',
      registers,
      collect() {
        this.reset();
        this.inc(smtp.bytes);
      },
    });
    new Counter({
      name: 'inboxd_smtp_rejections_total',
      help: 'SMTP refusals (one per refusing reply) by reason',
      labelNames: ['reason'],
      registers,
      collect() {
        this.reset();
        for (let i = 0; i < SMTP_REJECTIONS.length; i++) this.inc({ reason: SMTP_REJECTIONS[i]! }, smtp.rejections[i]!);
      },
    });
    new Counter({
      name: 'inboxd_smtp_faults_total',
      help: 'Faults injected by fault rules and local-part shortcuts (README "Fault rules"), by SMTP stage and action',
      labelNames: ['stage', 'action'],
      registers,
      collect() {
        this.reset();
        for (const [k, n] of sources.faultsFired?.() ?? []) {
          const [stage, action] = k.split(' ');
          this.inc({ stage: stage!, action: action! }, n);
        }
      },
    });
    this.registry.registerMetric(smtp.latency.asMetric());
    gauge('process_resident_memory_bytes', 'Resident memory of the process (RSS) in bytes', () => process.memoryUsage.rss());
    gauge('inboxd_js_heap_used_bytes', "Bytes in use in the main thread's JavaScript heap", () => process.memoryUsage().heapUsed);
    gauge(
      'inboxd_ingest_workers_running',
      'Ingest worker threads running now: they start with mail and stop after 5 minutes without, or 45 s after a burst',
      () => sources.ingestWorkers?.(),
    );
    gauge('inboxd_waits_open', 'Long-poll waits open now (GET …/wait, verify, open, the wait tools)', () => sources.waits?.());
    gauge('inboxd_sse_clients_open', 'SSE event streams open now', () => sources.sseClients?.());
    new Counter({
      name: 'inboxd_callback_attempts_total',
      help: 'Callback delivery attempts by outcome (retry: failed, another attempt is due; the others are final)',
      labelNames: ['outcome'],
      registers,
      collect() {
        this.reset();
        for (let i = 0; i < CALLBACK_OUTCOMES.length; i++) this.inc({ outcome: CALLBACK_OUTCOMES[i]! }, callbackOutcomes[i]!);
      },
    });
    gauge('inboxd_callback_deliveries_pending', 'Callback deliveries waiting for their next attempt', () => sources.callbacksPending?.());
    new Gauge({
      name: 'inboxd_outbound_recipients',
      help: 'Recipients of sent mail by delivery state (queued, sent, failed)',
      labelNames: ['state'],
      registers,
      async collect() {
        this.reset();
        if (!sources.outbound) return;
        const byState = await sources.outbound();
        for (const s of OUTBOUND_STATES) this.set({ state: s }, byState[s] ?? 0);
        for (const [s, n] of Object.entries(byState)) if (!OUTBOUND_STATES.includes(s as never)) this.set({ state: s }, n);
      },
    });
    new Counter({
      name: 'inboxd_http_requests_total',
      help: 'HTTP requests by operation (the API operation name, e.g. inboxes.get; mcp, metrics, or none for unrouted paths) and status',
      labelNames: ['operation', 'status'],
      registers,
      collect() {
        this.reset();
        for (const [operation, byStatus] of http) for (const [status, n] of byStatus) this.inc({ operation, status }, n);
      },
    });
    new Gauge({
      name: 'inboxd_store_bytes',
      help: 'Bytes in the data dir: the SQLite database with its WAL (part="sqlite"; part="postgres": the PostgreSQL database with --database) and the blob folder with its segments (part="blobs")',
      labelNames: ['part'],
      registers,
      async collect() {
        this.reset();
        if (!sources.storeSize) return;
        const s = await sources.storeSize();
        if (s.sqlite !== undefined) this.set({ part: 'sqlite' }, s.sqlite);
        if (s.postgres !== undefined) this.set({ part: 'postgres' }, s.postgres);
        this.set({ part: 'blobs' }, s.blobs);
      },
    });

    function gauge(name: string, help: string, read: () => number | undefined | Promise<number | undefined>): void {
      new Gauge({
        name,
        help,
        registers,
        async collect() {
          const v = await read();
          if (v === undefined) this.reset();
          else this.set(v);
        },
      });
    }
  }

  /** One finished HTTP request. `operation` is an operation name (bounded), never a raw path. */
  httpRequest(operation: string, status: number): void {
    let byStatus = this.http.get(operation);
    if (!byStatus) {
      byStatus = new Map();
      this.http.set(operation, byStatus);
    }
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  }

  /** Findings of one check run (check names come from the registry, severities from the three). */
  checkFound(check: string, severity: string, n: number): void {
    if (n <= 0 || this.checkFindings.size > 1_000) return;
    const k = `${check} ${severity}`;
    this.checkFindings.set(k, (this.checkFindings.get(k) ?? 0) + n);
  }

  callbackAttempt(outcome: CallbackOutcome): void {
    this.callbackOutcomes[OUTCOME_INDEX[outcome]]!++;
  }

  contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
