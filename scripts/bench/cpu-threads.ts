// CPU per message of each thread of one instance (main thread, V8 helpers, the libuv pool, the MIME worker), read from
// /proc/<pid>/task/*/stat around 1,500 messages of 5 KB (Postfix smtp-source, 20 sessions, a new connection each),
// after 300 to warm up. The input of the scaling model in docs/benchmarks.md.
//   node scripts/bench/cpu-threads.ts [postgres|sqlite]      (PROF=1: also --cpu-prof into /tmp/cpu-threads-<engine>)
import fs from 'node:fs';
import { startPostgres } from '../../test/helpers/postgres.ts';
import { smtpSource, startInboxd } from './lib.ts';

const engine = process.argv[2] ?? 'postgres';
const pg = engine === 'postgres' ? await startPostgres() : null;
function threads(pid: number) {
  const out: Record<string, [number, number]> = {};
  for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const st = fs.readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
      const name = st.slice(st.indexOf('(') + 1, st.lastIndexOf(')'));
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      const k = name.replace(/\d+$/, '#');
      const v = (out[k] ??= [0, 0]);
      v[0] += Number(f[11]);
      v[1] += Number(f[12]);
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}
try {
  const args = pg ? ['--database', await pg.createDatabase('prof')] : [];
  const s = await startInboxd(args, process.env.PROF ? { nodeFlags: ['--cpu-prof', `--cpu-prof-dir=/tmp/cpu-threads-${engine}`] } : {});
  const inbox = (await (await s.api('/v1/inboxes', { method: 'POST', json: { localPart: 'bench', ttlMinutes: 60 } })).json()) as {
    address: string;
  };
  await smtpSource({ port: s.smtp, sessions: 20, size: 5120, messages: 300, to: inbox.address });
  const a = threads(s.child.pid!);
  const t0 = performance.now();
  await smtpSource({ port: s.smtp, sessions: 20, size: 5120, messages: 1500, to: inbox.address });
  const b = threads(s.child.pid!);
  console.log(engine, Math.round(1500 / ((performance.now() - t0) / 1000)), 'msg/s; µs/msg user/sys per thread:');
  for (const k of Object.keys(b)) {
    const u = ((b[k]![0] - (a[k]?.[0] ?? 0)) * 10000) / 1500,
      sy = ((b[k]![1] - (a[k]?.[1] ?? 0)) * 10000) / 1500;
    if (u + sy > 20) console.log(`  ${k.padEnd(16)} ${Math.round(u)} / ${Math.round(sy)}`);
  }
  await s.stop();
} finally {
  await pg?.stop();
}
