// The `--dns-fixtures` file (issue 28): DNS answers for the auth check in a test environment with no DNS of its own.
// BIND-like lines, one record each:
//
//   ; comment (also #)
//   example.com.                  300 IN TXT "v=spf1 ip4:127.0.0.1 -all"
//   sel._domainkey.example.com       IN TXT "v=DKIM1; k=rsa; " "p=MIIBIjANBg…"
//   _dmarc.example.com               TXT    "v=DMARC1; p=reject"
//   mail.example.com                 A      127.0.0.1
//   example.com                      MX     10 mail.example.com
//
// Name, optional TTL (ignored), optional class IN, type (TXT, A, AAAA, MX, CNAME, PTR), data. A TXT value is one or
// more quoted strings (joined, as DNS joins a record's character-strings) or a bare word. Names are case-insensitive;
// the trailing dot is optional. The file is authoritative for every name it lists and every name below those: a
// question about them that it does not answer gets "no such record", never a lookup on the network, so a fixture
// zone gives the same verdicts offline as online. Bounded: at most 1 MiB and 10,000 records.
import fs from 'node:fs';

export type RecordType = 'TXT' | 'A' | 'AAAA' | 'MX' | 'CNAME' | 'PTR';
const TYPES = new Set<RecordType>(['TXT', 'A', 'AAAA', 'MX', 'CNAME', 'PTR']);
export const MAX_ZONE_BYTES = 1024 * 1024;
export const MAX_ZONE_RECORDS = 10_000;

export interface ZoneRecord {
  name: string;
  type: RecordType;
  /** TXT: the character-strings; A/AAAA/CNAME/PTR: one value; MX: [priority, exchange]. */
  data: string[];
}

export class FixtureZone {
  private readonly byName = new Map<string, ZoneRecord[]>();
  readonly size: number;

  constructor(records: ZoneRecord[]) {
    for (const r of records) {
      const list = this.byName.get(r.name);
      if (list) list.push(r);
      else this.byName.set(r.name, [r]);
    }
    this.size = records.length;
  }

  /** True when the name or one of its parents is listed: the zone answers for it (maybe with nothing). */
  covers(name: string): boolean {
    const n = normalName(name);
    for (let at = n; at; ) {
      if (this.byName.has(at)) return true;
      const dot = at.indexOf('.');
      if (dot < 0) return false;
      at = at.slice(dot + 1);
    }
    return false;
  }

  records(name: string, type: RecordType): ZoneRecord[] {
    return (this.byName.get(normalName(name)) ?? []).filter((r) => r.type === type);
  }

  /** Whether the name itself has any record (NOERROR/NODATA) or not (NXDOMAIN). */
  has(name: string): boolean {
    return this.byName.has(normalName(name));
  }
}

export function normalName(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, '');
}

export class ZoneSyntaxError extends Error {}

/** Parses the fixture text; throws ZoneSyntaxError naming the line on anything it cannot read. */
export function parseZone(text: string, source = '--dns-fixtures'): FixtureZone {
  if (Buffer.byteLength(text) > MAX_ZONE_BYTES)
    throw new ZoneSyntaxError(`${source} is larger than ${MAX_ZONE_BYTES} bytes; keep only the records the tests need`);
  const out: ZoneRecord[] = [];
  const lines = text.split(/\r?\n/);
  for (const [i, line] of lines.entries()) {
    const tokens = tokenize(line, () => new ZoneSyntaxError(`${source} line ${i + 1}: unterminated quoted string`));
    if (tokens.length === 0) continue;
    const fail = (why: string) => new ZoneSyntaxError(`${source} line ${i + 1}: ${why} (expected: name [ttl] [IN] TYPE data)`);
    let k = 0;
    const name = tokens[k++]!;
    if (name.quoted) throw fail('the name must not be quoted');
    if (tokens[k] && !tokens[k]!.quoted && /^\d+$/.test(tokens[k]!.text)) k++;
    if (tokens[k] && !tokens[k]!.quoted && tokens[k]!.text.toUpperCase() === 'IN') k++;
    const typeTok = tokens[k++];
    const type = typeTok?.text.toUpperCase() as RecordType | undefined;
    if (!type || typeTok!.quoted || !TYPES.has(type))
      throw fail(`unknown or missing record type "${typeTok?.text ?? ''}" (TXT, A, AAAA, MX, CNAME, PTR)`);
    const data = tokens.slice(k).map((t) => t.text);
    if (data.length === 0) throw fail(`a ${type} record needs data`);
    if (type === 'MX' && (data.length !== 2 || !/^\d+$/.test(data[0]!))) throw fail('an MX record is "priority exchange"');
    if (type !== 'TXT' && type !== 'MX' && data.length !== 1) throw fail(`a ${type} record has one value`);
    out.push({ name: normalName(name.text), type, data: type === 'TXT' ? data : data.map((d) => normalName(d)) });
    if (out.length > MAX_ZONE_RECORDS) throw new ZoneSyntaxError(`${source} has more than ${MAX_ZONE_RECORDS} records`);
  }
  return new FixtureZone(out);
}

export function loadZoneFile(path: string): FixtureZone {
  let st: fs.Stats;
  try {
    st = fs.statSync(path);
  } catch (e) {
    throw new ZoneSyntaxError(`--dns-fixtures ${path} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'}); check the path`);
  }
  if (st.size > MAX_ZONE_BYTES)
    throw new ZoneSyntaxError(`--dns-fixtures ${path} is larger than ${MAX_ZONE_BYTES} bytes; keep only the records the tests need`);
  return parseZone(fs.readFileSync(path, 'utf8'), `--dns-fixtures ${path}`);
}

function tokenize(line: string, unterminated: () => Error): Array<{ text: string; quoted: boolean }> {
  const out: Array<{ text: string; quoted: boolean }> = [];
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    if (c === ';' || c === '#') break;
    if (c === '"') {
      let s = '';
      i++;
      for (;;) {
        if (i >= line.length) throw unterminated();
        const d = line[i]!;
        if (d === '\\' && i + 1 < line.length) {
          s += line[i + 1];
          i += 2;
          continue;
        }
        if (d === '"') {
          i++;
          break;
        }
        s += d;
        i++;
      }
      out.push({ text: s, quoted: true });
      continue;
    }
    let s = '';
    while (i < line.length && !' \t;"'.includes(line[i]!)) s += line[i++];
    out.push({ text: s, quoted: false });
  }
  return out;
}
