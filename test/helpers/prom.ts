// A strict parser of the Prometheus text exposition format 0.0.4, for tests: every line must be a HELP, a TYPE, or
// a well-formed sample; a family's samples must be together and follow its TYPE; no series may repeat; histogram
// buckets must be cumulative and end in +Inf equal to _count; counters must not be negative. Throws on anything else.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string | null;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

export function parsePrometheus(text: string): Map<string, Family> {
  if (text.length > 0 && !text.endsWith('\n')) throw new Error('the exposition must end with a newline');
  const families = new Map<string, Family>();
  const finished = new Set<string>();
  const seen = new Set<string>();
  let current: Family | null = null;
  const lines = text.split('\n');
  lines.pop();
  lines.forEach((line, i) => {
    const where = `line ${i + 1} (${JSON.stringify(line)})`;
    if (line === '') return;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) ?(.*)$/.exec(line);
      if (!m) return; // a plain comment
      const [, kind, name, rest] = m as unknown as [string, string, string, string];
      let f = families.get(name);
      if (!f) {
        if (finished.has(name)) throw new Error(`${where}: family ${name} appears twice`);
        f = { name, type: 'untyped', help: null, samples: [] };
        families.set(name, f);
      }
      if (current && current !== f) finished.add(current.name);
      current = f;
      if (kind === 'HELP') {
        if (f.help !== null) throw new Error(`${where}: second HELP for ${name}`);
        f.help = rest;
      } else {
        if (!TYPES.has(rest)) throw new Error(`${where}: unknown type ${rest}`);
        if (f.samples.length > 0) throw new Error(`${where}: TYPE after samples of ${name}`);
        f.type = rest as Family['type'];
      }
      return;
    }
    const s = parseSample(line, where);
    const fam = familyOf(s.name, families);
    if (!fam) throw new Error(`${where}: sample ${s.name} has no TYPE line`);
    if (fam !== current) throw new Error(`${where}: samples of ${fam.name} are not together`);
    const key = `${s.name}{${Object.entries(s.labels)
      .sort()
      .map(([k, v]) => `${k}=${v}`)
      .join(',')}}`;
    if (seen.has(key)) throw new Error(`${where}: series ${key} repeats`);
    seen.add(key);
    if (fam.type === 'counter' && !(s.value >= 0)) throw new Error(`${where}: a counter is negative or NaN`);
    fam.samples.push(s);
  });
  for (const f of families.values()) if (f.type === 'histogram') checkHistogram(f);
  return families;
}

function familyOf(sample: string, families: Map<string, Family>): Family | undefined {
  const direct = families.get(sample);
  if (direct) return direct;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!sample.endsWith(suffix)) continue;
    const f = families.get(sample.slice(0, -suffix.length));
    if (f && (f.type === 'histogram' || (f.type === 'summary' && suffix !== '_bucket'))) return f;
  }
  return undefined;
}

function parseSample(line: string, where: string): Sample {
  const nm = NAME.exec(line);
  if (!nm) throw new Error(`${where}: no metric name`);
  const name = nm[0];
  let rest = line.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith('{')) {
    rest = rest.slice(1);
    while (!rest.startsWith('}')) {
      const ln = LABEL_NAME.exec(rest);
      if (!ln) throw new Error(`${where}: bad label name`);
      rest = rest.slice(ln[0].length);
      if (!rest.startsWith('="')) throw new Error(`${where}: expected =" after ${ln[0]}`);
      rest = rest.slice(2);
      let value = '';
      for (;;) {
        const c = rest[0];
        if (c === undefined) throw new Error(`${where}: unterminated label value`);
        rest = rest.slice(1);
        if (c === '"') break;
        if (c === '\\') {
          const e = rest[0];
          rest = rest.slice(1);
          if (e === 'n') value += '\n';
          else if (e === '\\' || e === '"') value += e;
          else throw new Error(`${where}: bad escape \\${e}`);
        } else value += c;
      }
      if (ln[0] in labels) throw new Error(`${where}: label ${ln[0]} twice`);
      labels[ln[0]] = value;
      if (rest.startsWith(',')) rest = rest.slice(1);
      else if (!rest.startsWith('}')) throw new Error(`${where}: expected , or }`);
    }
    rest = rest.slice(1);
  }
  const m = /^ (\S+)( -?\d+)?$/.exec(rest);
  if (!m) throw new Error(`${where}: expected " value [timestamp]"`);
  return { name, labels, value: parseValue(m[1]!, where) };
}

function parseValue(v: string, where: string): number {
  if (v === '+Inf') return Number.POSITIVE_INFINITY;
  if (v === '-Inf') return Number.NEGATIVE_INFINITY;
  if (v === 'NaN') return Number.NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(v)) throw new Error(`${where}: bad value ${v}`);
  return Number(v);
}

function checkHistogram(f: Family): void {
  const groups = new Map<string, { buckets: Array<[number, number]>; count?: number; sum?: number }>();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const g = groups.get(key) ?? { buckets: [] };
    groups.set(key, g);
    if (s.name === `${f.name}_bucket`) {
      if (le === undefined) throw new Error(`${f.name}: a bucket without le`);
      g.buckets.push([parseValue(le, f.name), s.value]);
    } else if (s.name === `${f.name}_count`) g.count = s.value;
    else if (s.name === `${f.name}_sum`) g.sum = s.value;
    else throw new Error(`${f.name}: unexpected sample ${s.name} in a histogram`);
  }
  for (const g of groups.values()) {
    if (g.count === undefined || g.sum === undefined) throw new Error(`${f.name}: _count or _sum missing`);
    const last = g.buckets.at(-1);
    if (!last || last[0] !== Number.POSITIVE_INFINITY) throw new Error(`${f.name}: the last bucket must be le="+Inf"`);
    if (last[1] !== g.count) throw new Error(`${f.name}: the +Inf bucket (${last[1]}) differs from _count (${g.count})`);
    for (let i = 1; i < g.buckets.length; i++) {
      if (g.buckets[i]![0] <= g.buckets[i - 1]![0]) throw new Error(`${f.name}: bucket bounds not increasing`);
      if (g.buckets[i]![1] < g.buckets[i - 1]![1]) throw new Error(`${f.name}: buckets not cumulative`);
    }
  }
}

/**
 * The value of one series; undefined when it is not there. The `inboxd_instance` label every series carries (the
 * instance id, GET /v1/cluster) is matched only when `labels` names it.
 */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const f of families.values()) {
    for (const s of f.samples) {
      if (s.name !== name) continue;
      const keys = Object.keys(s.labels).filter((k) => k !== 'inboxd_instance' || 'inboxd_instance' in labels);
      if (keys.length === Object.keys(labels).length && keys.every((k) => s.labels[k] === labels[k])) return s.value;
    }
  }
  return undefined;
}
