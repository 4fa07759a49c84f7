// CPU time of a process per thread, from /proc/<pid>/task/*/stat read before and after a run: robust (no profiler,
// no change to the measured program) and exact to the clock tick (10 ms), so runs need a few thousand messages.
import fs from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

export interface CpuSample {
  /** tid → thread name and user+system ms so far */
  threads: Map<string, { name: string; ms: number }>;
  /** the whole process (includes threads that have ended) */
  processMs: number;
}

function ticks(stat: string): number {
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
}

export function sampleCpu(pid: number): CpuSample {
  const threads = new Map<string, { name: string; ms: number }>();
  for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const st = fs.readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
      threads.set(t, { name: st.slice(st.indexOf('(') + 1, st.lastIndexOf(')')), ms: ticks(st) });
    } catch {
      // the thread ended between readdir and read
    }
  }
  return { threads, processMs: ticks(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')) };
}

/** What each kind of Node thread does, for the report. */
export function threadKind(name: string): string {
  if (name === 'MainThread') return 'main thread';
  if (name === 'WorkerThread') return 'ingest workers';
  if (name === 'V8Worker') return 'V8 helpers (parallel GC, compiler)';
  if (name === 'libuv-worker') return 'libuv pool (fs, crypto)';
  return name;
}

export interface CpuTotals {
  messages: number;
  /** kind → { ms, threads } */
  kinds: Map<string, { ms: number; threads: Set<string> }>;
  processMs: number;
}

export const emptyTotals = (): CpuTotals => ({ messages: 0, kinds: new Map(), processMs: 0 });

/** Adds the CPU between two samples of the same process to `into`. */
export function addCpu(into: CpuTotals, before: CpuSample, after: CpuSample, messages: number): void {
  into.messages += messages;
  into.processMs += after.processMs - before.processMs;
  for (const [tid, t] of after.threads) {
    const d = t.ms - (before.threads.get(tid)?.ms ?? 0);
    const kind = threadKind(t.name);
    const k = into.kinds.get(kind) ?? { ms: 0, threads: new Set<string>() };
    k.ms += d;
    if (d > 0) k.threads.add(tid);
    into.kinds.set(kind, k);
  }
}

/** µs of CPU per message by thread kind (busy threads of that kind in brackets), and the whole process. */
export function perMessage(t: CpuTotals): { byKind: Record<string, { us: number; threads: number }>; processUs: number } {
  const byKind: Record<string, { us: number; threads: number }> = {};
  for (const [k, v] of [...t.kinds].sort((a, b) => b[1].ms - a[1].ms))
    if (v.ms > 0) byKind[k] = { us: Math.round((v.ms * 1000) / t.messages), threads: v.threads.size };
  return { byKind, processUs: Math.round((t.processMs * 1000) / t.messages) };
}

/**
 * Sums the pauses V8 reports with --trace-gc, per isolate: each line's "a / b ms" pause plus the incremental marking
 * steps ("+ x ms in n steps") that ran on the isolate's own thread. Isolates are named in the order they first report:
 * the main thread's comes first (it collects while the server loads, before any worker exists).
 */
export function gcTracker() {
  const isolates = new Map<string, { label: string; ms: number; events: number }>();
  let buf = '';
  const line = (l: string) => {
    const m = /^\[\d+:(0x[0-9a-f]+)\]\s+[\d.]+ ms: (.*)$/.exec(l);
    if (!m) return;
    const pause = /MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ [\d.]+ ms/.exec(m[2]!);
    if (!pause) return;
    const steps = /\(\+ ([\d.]+) ms in \d+ steps/.exec(m[2]!);
    let s = isolates.get(m[1]!);
    if (!s) {
      s = { label: isolates.size === 0 ? 'main thread' : `worker isolate ${isolates.size}`, ms: 0, events: 0 };
      isolates.set(m[1]!, s);
    }
    s.ms += Number(pause[1]) + (steps ? Number(steps[1]) : 0);
    s.events++;
  };
  return {
    feed(chunk: Buffer) {
      buf += chunk.toString('latin1');
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        line(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
    },
    /** label → total pause ms so far */
    snapshot(): Map<string, number> {
      return new Map([...isolates.values()].map((s) => [s.label, s.ms]));
    },
  };
}
