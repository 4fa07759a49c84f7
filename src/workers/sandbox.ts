// Worker thread entry of the sandbox (src/budget/sandbox.ts; src/workers/ holds worker-thread entry points, the
// way src/main.ts is the process's): runs one task at a time and posts its answer back.
// One at a time, so the main thread always knows which job a stuck or dead worker was working on. In the single
// executable this file is bundled on its own (scripts/build.ts) and started from a SEA asset with `eval: true`.
import { parentPort } from 'node:worker_threads';
import type { SandboxJob, SandboxReply } from '../budget/sandbox.ts';
import { TASKS } from './sandbox-tasks.ts';

const port = parentPort;
if (!port) throw new Error('src/workers/sandbox.ts runs only as a worker thread');

port.on('message', async (job: SandboxJob) => {
  try {
    const fn = TASKS[job.task] as ((input: unknown) => unknown) | undefined;
    if (!fn) throw new Error(`unknown sandbox task ${job.task}`);
    const output = await fn(job.input);
    port.postMessage({ id: job.id, ok: true, output } satisfies SandboxReply);
  } catch (e) {
    port.postMessage({ id: job.id, ok: false, error: (e as Error)?.message ?? String(e) } satisfies SandboxReply);
  }
});
port.postMessage({ ready: true });
