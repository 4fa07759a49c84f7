// Worker thread entry: analyses messages one at a time (parse → extract → hash) and posts each result back.
// One at a time, so the main thread always knows which message a stuck or crashed worker was working on.
// In the single executable this file is bundled on its own (scripts/build.ts) and started from a SEA asset with
// `eval: true`, so it must import nothing but node built-ins and bundled code.
import { parentPort } from 'node:worker_threads';
import { codeCache } from '../lib/worker-source.ts';
import { type Extraction, extractVerification } from '../mail/extract/index.ts';
import type { PresetId } from '../mail/presets.ts';
import type { ParsedMessage } from '../mail/types.ts';
import { analyze, forStorage, type StoredAnalysis } from './analyze.ts';

/** Analyse a raw message, or extract again from a stored parse (with a service preset). */
export type AnalyzeJob =
  | { id: number; kind?: undefined; raw: Uint8Array; trustedHosts: string[] }
  | { id: number; kind: 'extract'; parsed: ParsedMessage; service: PresetId; trustedHosts: string[] };

export type AnalyzeReply =
  | { id: number; ok: true; analysis: StoredAnalysis }
  | { id: number; ok: true; extraction: Extraction }
  | { id: number; ok: false; error: string };

const port = parentPort;
if (!port) throw new Error('analyze-worker.ts runs only as a worker thread');

const queue: AnalyzeJob[] = [];
let busy = false;

async function drain(): Promise<void> {
  busy = true;
  for (let job = queue.shift(); job; job = queue.shift()) {
    if (job.kind === 'extract') {
      try {
        const extraction = extractVerification(job.parsed, { service: job.service, trustedHosts: job.trustedHosts });
        port!.postMessage({ id: job.id, ok: true, extraction } satisfies AnalyzeReply);
      } catch (e) {
        port!.postMessage({ id: job.id, ok: false, error: (e as Error)?.message ?? String(e) } satisfies AnalyzeReply);
      }
      continue;
    }
    const raw = Buffer.from(job.raw.buffer, job.raw.byteOffset, job.raw.byteLength);
    try {
      const analysis = forStorage(await analyze(raw, job.trustedHosts));
      port!.postMessage({ id: job.id, ok: true, analysis } satisfies AnalyzeReply);
    } catch (e) {
      port!.postMessage({ id: job.id, ok: false, error: (e as Error)?.message ?? String(e) });
    }
  }
  busy = false;
}

port.on('message', (job: AnalyzeJob) => {
  queue.push(job);
  if (!busy) void drain();
});
// Every module is loaded: from now on the main thread's time limit per message applies. `codeCache`: whether the
// single executable's code cache spared this worker its compile (null from source).
port.postMessage({ ready: true, codeCache: codeCache()?.state ?? null });
