// The cluster view (issue 33, GET /v1/cluster): every instance sharing the database writes a heartbeat row (its id,
// version, start time, the once-per-cluster jobs it leads and its health) every HEARTBEAT_MS; the view lists the rows
// with how late each heartbeat is. A row not refreshed for STALE_AFTER_MS is `stale` (the instance died or lost the
// database); a stopped instance marks its row `stopped`; rows silent for a day are pruned. On SQLite the list holds
// the one instance of the data dir.
import os from 'node:os';
import type { StorageReport } from '../store/health.ts';
import { VERSION } from '../version.ts';
import type { InstanceRepo, InstanceRow } from './repo.ts';

export const HEARTBEAT_MS = 10_000;
/** Three missed heartbeats. */
export const STALE_AFTER_MS = 3 * HEARTBEAT_MS;
const PRUNE_AFTER_MS = 24 * 3600_000;

export interface InstanceHealth {
  status: 'ok' | 'degraded' | 'down';
  reason: string | null;
}

/** One link of the instance's model chain (src/ai/): ready, and its last probe on this instance. */
export interface InstanceModel {
  model: string;
  ready: boolean;
  lastProbe: { at: string; ok: boolean; latencyMs: number; error: string | null } | null;
}

export interface InstanceView {
  id: string;
  hostname: string;
  pid: number;
  version: string;
  startedAt: number;
  heartbeatAt: number;
  stoppedAt: number | null;
  state: 'up' | 'stale' | 'stopped';
  roles: string[];
  health: InstanceHealth;
  models: InstanceModel[];
  self: boolean;
}

export interface ClusterDeps {
  repo: InstanceRepo;
  /** This process's instance id (also the `inboxd_instance` label of its metrics). */
  instanceId: string;
  startedAt: number;
  now: () => number;
  /** The once-per-cluster jobs this instance leads now (store.leading). */
  leading: () => string[];
  /** This instance's storage health, as /health sees it. */
  storage: () => Promise<StorageReport>;
  /** The model chain's readiness here (the built-in engine left out: always ready). */
  models: () => InstanceModel[];
}

export class ClusterService {
  private readonly d: ClusterDeps;
  private stopped: number | null = null;
  /** The beat being written: a slow database does not pile beats up. */
  private inFlight: Promise<void> | null = null;

  constructor(d: ClusterDeps) {
    this.d = d;
  }

  get instanceId(): string {
    return this.d.instanceId;
  }

  /** Writes this instance's heartbeat (and prunes rows silent for a day); a beat still being written is joined. */
  beat(): Promise<void> {
    this.inFlight ??= (async () => {
      const now = this.d.now();
      const health = await this.health();
      await this.d.repo.beat(this.row(now, health));
      await this.d.repo.prune(now - PRUNE_AFTER_MS);
    })().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  /**
   * The last heartbeat, marking this instance stopped (the view shows it so until the row is pruned). Given up after
   * `timeoutMs` (a database that does not answer must not hold the shutdown; the row then turns stale instead).
   */
  async stop(timeoutMs = 2_000): Promise<void> {
    this.stopped = this.d.now();
    const write = this.d.repo.beat(this.row(this.stopped, { status: 'down', reason: 'stopped' }));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer from the database within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([write, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Every instance's row; the answering instance's roles, health and models are read live, not from its last beat. */
  async list(): Promise<{ instances: InstanceView[]; now: number }> {
    const now = this.d.now();
    const [rows, health] = await Promise.all([this.d.repo.list(), this.health()]);
    const instances = rows.map((r) => this.view(r, now));
    const self = instances.find((i) => i.self);
    if (self && self.state !== 'stopped') Object.assign(self, { roles: this.d.leading(), models: this.d.models(), health });
    return { now, instances };
  }

  /** What /health would answer here: ok, degraded (data dir short of space or read-only, bucket away) or down. */
  private async health(): Promise<InstanceHealth> {
    try {
      const r = await this.d.storage();
      if (r.database === 'down') return { status: 'down', reason: `database: ${r.detail}` };
      return r.reason ? { status: 'degraded', reason: r.reason } : { status: 'ok', reason: null };
    } catch (e) {
      return { status: 'down', reason: (e as Error).message };
    }
  }

  private row(now: number, health: InstanceHealth): InstanceRow {
    return {
      id: this.d.instanceId,
      hostname: os.hostname(),
      pid: process.pid,
      version: VERSION,
      started_at: this.d.startedAt,
      heartbeat_at: now,
      stopped_at: this.stopped,
      roles_json: JSON.stringify(this.d.leading()),
      health_json: JSON.stringify(health),
      models_json: JSON.stringify(this.d.models()),
    };
  }

  private view(r: InstanceRow, now: number): InstanceView {
    const heartbeatAt = Number(r.heartbeat_at);
    const stoppedAt = r.stopped_at === null ? null : Number(r.stopped_at);
    return {
      id: r.id,
      hostname: r.hostname,
      pid: Number(r.pid),
      version: r.version,
      startedAt: Number(r.started_at),
      heartbeatAt,
      stoppedAt,
      state: stoppedAt !== null ? 'stopped' : now - heartbeatAt > STALE_AFTER_MS ? 'stale' : 'up',
      roles: parseJson<string[]>(r.roles_json, []),
      health: parseJson<InstanceHealth>(r.health_json, { status: 'down', reason: 'unreadable health' }),
      models: parseJson<InstanceModel[]>(r.models_json, []),
      self: r.id === this.d.instanceId,
    };
  }
}

function parseJson<T>(s: string, fallback: T): T {
  try {
    return JSON.parse(s) as T;
  } catch {
    return fallback;
  }
}
