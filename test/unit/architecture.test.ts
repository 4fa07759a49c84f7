// The map of the house, enforced (ARCHITECTURE.md): which folder of src/ may import which, that operations never
// touch storage, that no runtime import cycle joins two folders, and that no module keeps services in a global.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const SRC = path.join(import.meta.dirname, '../../src');

interface SourceFile {
  rel: string;
  unit: string;
  text: string;
  imports: Array<{ to: string; typeOnly: boolean }>;
}

/** A folder of src/ (`ops`, `inboxes`, …) or a top-level file without its extension (`config`, `errors`, …). */
function unitOf(rel: string): string {
  const [first, ...rest] = rel.split('/');
  return rest.length > 0 ? first! : first!.replace(/\.tsx?$/, '');
}

function sources(): SourceFile[] {
  const out: SourceFile[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) {
        const rel = path.relative(SRC, p).split(path.sep).join('/');
        const text = fs.readFileSync(p, 'utf8');
        const imports: SourceFile['imports'] = [];
        for (const m of text.matchAll(/^(?:import|export)\s+(type\s+)?([^'";]*?)\s*from\s*'(\.[^']+)'/gms)) {
          const named = m[2]!.trim();
          const allTypes =
            /^\{[^}]*\}$/.test(named) &&
            named
              .slice(1, -1)
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean)
              .every((s) => s.startsWith('type '));
          const to = path
            .relative(SRC, path.resolve(path.dirname(p), m[3]!))
            .split(path.sep)
            .join('/');
          if (to.startsWith('..')) continue;
          imports.push({ to, typeOnly: Boolean(m[1]) || allTypes });
        }
        for (const m of text.matchAll(/^import\s+'(\.[^']+)'/gm)) {
          imports.push({
            to: path
              .relative(SRC, path.resolve(path.dirname(p), m[1]!))
              .split(path.sep)
              .join('/'),
            typeOnly: false,
          });
        }
        out.push({ rel, unit: unitOf(rel), text, imports });
      }
    }
  };
  walk(SRC);
  return out;
}

const FILES = sources();

// ── Layers ────────────────────────────────────────────────────────────────────────────────────────────────────────
/** Imported by anything: small, dependency-free modules. */
const KERNEL = ['errors', 'log', 'version', 'lib'];
/** Edges of the process: they call operations or hand streams to ingest; nothing imports them. */
const EDGES = ['http', 'mcp', 'smtp', 'pop3', 'imap'];
/** Entry points: the process (main, cli), worker threads, and the composition root. Nothing imports them. */
const ENTRIES = ['main', 'cli', 'server', 'workers'];

/**
 * Every allowed runtime arrow between units, beyond KERNEL (which every unit may import). A new arrow is a design
 * decision: add it here with the reason in ARCHITECTURE.md, or move the code.
 */
const ALLOWED: Record<string, string[]> = {
  // entries
  main: ['cli', 'config', 'server'],
  cli: ['ai', 'budget', 'client', 'config', 'mail'],
  workers: ['ai', 'budget', 'checks', 'providers', 'render', 'search'],
  server: ['*'],
  // edges
  http: ['auth', 'events', 'metrics', 'ops'],
  mcp: ['auth', 'http', 'ops'],
  smtp: ['ingest'],
  // POP3 and IMAP: listeners that read and flag an inbox's mail through its capability (src/inboxes/mail-access.ts)
  pop3: ['inboxes', 'mail'],
  imap: ['inboxes', 'mail'],
  // operations: the API surface over the capabilities
  ops: [
    'agent',
    'ai',
    'auth',
    'billing',
    'budget',
    'checks',
    'cluster',
    'console',
    'domains',
    'events',
    'faults',
    'inboxes',
    'ingest',
    'labels',
    'mail',
    'outbound',
    'providers',
    'render',
    'runs',
    'search',
    'store',
    'threads',
    'workspace',
  ],
  // capabilities
  agent: ['auth', 'inboxes', 'mail', 'store'],
  ai: ['budget', 'mail'],
  auth: ['store'],
  billing: [],
  budget: [],
  client: ['checks'],
  // the cluster view: heartbeat rows of the instances sharing the database (types of store only)
  cluster: [],
  checks: ['budget', 'domains', 'errors', 'lib', 'log', 'mail', 'store'],
  config: ['ai', 'search', 'store'],
  console: ['store'],
  // PNG renderings of stored mail by chromium, under a budget (src/render/)
  render: ['errors', 'lib', 'log', 'store'],
  'data-dir': [],
  domains: ['store'],
  events: ['ingest', 'mail', 'store'],
  faults: ['auth', 'store'],
  inboxes: ['auth', 'events', 'ingest', 'mail', 'store'],
  labels: ['auth', 'ingest', 'mail', 'search', 'store'],
  ingest: ['mail', 'search', 'store', 'threads'],
  mail: [],
  metrics: ['auth'],
  outbound: ['auth', 'events', 'mail', 'store'],
  providers: ['budget', 'mail', 'store', 'workspace'],
  runs: ['auth', 'inboxes', 'mail'],
  search: ['ai', 'budget', 'mail', 'store'],
  services: [],
  store: ['mail'],
  threads: ['mail', 'store'],
  workspace: ['ai', 'mail', 'store'],
};

function runtimeEdges(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const f of FILES)
    for (const i of f.imports) {
      const to = unitOf(i.to);
      if (i.typeOnly || to === f.unit) continue;
      if (!edges.has(f.unit)) edges.set(f.unit, new Set());
      edges.get(f.unit)!.add(to);
    }
  return edges;
}

function offenders(test: (f: SourceFile, i: SourceFile['imports'][number]) => boolean): string[] {
  return FILES.flatMap((f) => f.imports.filter((i) => test(f, i)).map((i) => `${f.rel} → ${i.to}`));
}

test('every runtime import between units is an allowed arrow', () => {
  const bad: string[] = [];
  for (const f of FILES)
    for (const i of f.imports) {
      const to = unitOf(i.to);
      if (i.typeOnly || to === f.unit || KERNEL.includes(to)) continue;
      const allowed = ALLOWED[f.unit];
      assert.ok(allowed, `src/${f.rel}: the unit "${f.unit}" is not in the architecture table (test/unit/architecture.test.ts)`);
      if (!allowed.includes('*') && !allowed.includes(to)) bad.push(`src/${f.rel} → src/${i.to}`);
    }
  assert.deepEqual(bad, [], 'arrows not in the table (ARCHITECTURE.md "Which way imports point")');
});

test('nothing imports an entry point or an edge at run time', () => {
  const bad = offenders((f, i) => {
    const to = unitOf(i.to);
    if (i.typeOnly) return false;
    if (to === f.unit || f.unit === 'server' || f.unit === 'main') return false;
    if (f.unit === 'mcp' && to === 'http') return false; // MCP is mounted on the HTTP app
    return ENTRIES.includes(to) || EDGES.includes(to);
  });
  assert.deepEqual(bad, []);
});

test('capability folders never import operations, edges or entry points, not even their types', () => {
  const above = new Set(['ops', ...EDGES, ...ENTRIES]);
  // The sandbox names its tasks with the types of the worker's task table (src/workers/sandbox-tasks.ts).
  const typedByWorker = (f: SourceFile, i: SourceFile['imports'][number]) =>
    f.rel === 'budget/sandbox.ts' && i.typeOnly && i.to.startsWith('workers/');
  const bad = offenders(
    (f, i) => !above.has(f.unit) && f.unit !== 'services' && above.has(unitOf(i.to)) && unitOf(i.to) !== f.unit && !typedByWorker(f, i),
  );
  assert.deepEqual(bad, []);
});

test('no runtime import cycle joins two units', () => {
  const edges = runtimeEdges();
  const cycles: string[] = [];
  // Tarjan's strongly connected components over the unit graph.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      for (let w = stack.pop()!; ; w = stack.pop()!) {
        on.delete(w);
        scc.push(w);
        if (w === v) break;
      }
      if (scc.length > 1) cycles.push(scc.sort().join(' ↔ '));
    }
  };
  for (const v of edges.keys()) if (!idx.has(v)) visit(v);
  assert.deepEqual(cycles, []);
});

// ── Operations never touch storage ───────────────────────────────────────────────────────────────────────────────
const STORAGE = [
  { re: /\bstore\.db\b|\.db\b(?!\w)/, what: 'a database handle' },
  { re: /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|selectNoFrom|mergeInto)\(/, what: 'a query-builder call' },
  { re: /\bsql(<[^>]*>)?`|\bsql\.(raw|ref|table|id|lit|join)\(/, what: 'an sql tag' },
  { re: /\bnew [A-Z]\w*Repo\(/, what: 'a repository built in place' },
  { re: /\bctx\.services\.(store|writer|messages|keys|accessRepo|audit|deliveries|blobs)\b/, what: 'storage read from the services' },
];

test('operations (src/ops/**) hold no query, no database handle and build no repository', () => {
  const bad: string[] = [];
  for (const f of FILES.filter((x) => x.unit === 'ops')) {
    const code = f.text.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
    for (const { re, what } of STORAGE) if (re.test(code)) bad.push(`src/${f.rel}: ${what} (${code.match(re)![0]})`);
    for (const i of f.imports) if (!i.typeOnly && /^store\//.test(i.to)) bad.push(`src/${f.rel}: imports src/${i.to} at runtime`);
    if (/from 'kysely'/.test(code) && !/import type [^;]*from 'kysely'/.test(code)) bad.push(`src/${f.rel}: imports kysely`);
  }
  assert.deepEqual(bad, []);
});

test('a capability service builds no query: its repository module does (service.ts files)', () => {
  const bad: string[] = [];
  for (const f of FILES.filter((x) => x.rel.endsWith('/service.ts') && !x.rel.startsWith('ops/'))) {
    const code = f.text.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
    for (const { re, what } of STORAGE.slice(1, 3)) if (re.test(code)) bad.push(`src/${f.rel}: ${what} (${code.match(re)![0]})`);
  }
  assert.deepEqual(bad, []);
});

// ── One wiring style ─────────────────────────────────────────────────────────────────────────────────────────────
/**
 * Module-level state that is not a service: memos of pure values (keyed by the value, bounded or dying with it) and
 * facts of the process itself. Everything else a module kept at its top level would be shared by every server in the
 * process, unseen by the composition root: build it in src/server/wire.ts and pass it in.
 */
const PROCESS_STATE: Record<string, string> = {
  'ai/schema.ts:compiled': "the sandbox worker thread's compiled validators by schema text, at most 32",
  'providers/calendar/tz.ts:formatters': 'Intl.DateTimeFormat per time zone name (pure, bounded by the zone list)',
  'ai/builtin/calendars.ts:formats': 'Intl.DateTimeFormat per calendar (pure, at most three: persian, islamic, gregory)',
  'ai/builtin/digits.ts:values': 'value of each non-ASCII decimal digit met, derived from \\p{Nd} (pure, at most 4,096)',
  'mail/extract/entities.ts:NAMED': 'HTML entity table filled once from a constant',
  'mail/presets.ts:BY_DOMAIN': 'preset lookup filled once from the constant preset list',
  'inboxes/encoded.ts:byAnchor': 'JSON bytes of a view, keyed by the answer object one server built (dies with it)',
  'inboxes/encoded.ts:ofView': 'the same, keyed by the view object',
  'ingest/limits.ts:seqAt': 'the RCPT query compiled once per database handle (pure, dies with the handle)',
  'data-dir.ts:held': 'data dirs this process holds the lock of: two servers in one process must not share one',
  'store/prepared.ts:named': 'prepared-statement name per precompiled SQL text (pure, bounded by the precompiled queries)',
  'store/prepared.ts:deferrable': 'the precompiled SQL texts whose result no caller reads (pure, same bound)',
  'store/prepared.ts:appendable': 'the precompiled one-row INSERT texts that may go as one multi-row INSERT (pure, same bound)',
  'store/pg.ts:multiRowTexts': 'the multi-row form of an INSERT text per row count (pure, at most 4,096)',
};

test('no module keeps services, repositories or per-server state in a global', () => {
  const bad: string[] = [];
  for (const f of FILES) {
    if (f.rel.startsWith('console/ui/')) continue; // browser code: one page, one app
    const globals = [
      // caches and registries: a WeakMap, or a Map/Set that starts empty
      ...f.text.matchAll(/^(?:export\s+)?(?:const|let)\s+(\w+)(?::[^=]+)?\s*=\s*new\s+(WeakMap|WeakSet)\b/gm),
      ...f.text.matchAll(/^(?:export\s+)?(?:const|let)\s+(\w+)(?::[^=]+)?\s*=\s*new\s+(Map|Set)\b(?:<[^(]*>)?\(\)/gm),
      // a service, repository, scheduler or store built at import time
      ...f.text.matchAll(
        /^(?:export\s+)?(?:const|let)\s+(\w+)(?::[^=]+)?\s*=\s*new\s+([A-Z]\w*(?:Service|Repo|Scheduler|Store|Gate|Waits|Log))\(/gm,
      ),
      ...f.text.matchAll(/^(?:export\s+)?let\s+(\w+)\s*:\s*([A-Z]\w*(?:Service|Repo|Scheduler|Store|Gate|Waits))\b/gm),
    ];
    for (const m of globals) {
      const key = `${f.rel}:${m[1]}`;
      if (!(key in PROCESS_STATE)) bad.push(`src/${key} (module-level ${m[2]})`);
    }
  }
  assert.deepEqual(bad, []);
});

test('capability code takes narrow dependencies, never the whole Services bag', () => {
  const allowed = new Set(['ops', 'http', 'mcp', 'server', 'services', 'metrics']);
  const bad = FILES.filter((f) => !allowed.has(f.unit) && /\bServices\b/.test(f.text.replace(/\/\/.*$/gm, ''))).map((f) => `src/${f.rel}`);
  assert.deepEqual(bad, []);
});
