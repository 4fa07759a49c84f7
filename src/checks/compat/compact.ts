// caniemail's data (https://www.caniemail.com, MIT, vendored in ./data/) in the form the compat matcher reads: for
// every feature, the support of each client (`<family>.<platform>`) in its LATEST tested version only, with the notes
// that cell cites resolved to their text. The full file is 654 KB; this form is about a fifth of that. The build
// (scripts/build.ts) runs this over the JSON import so the executable carries only the compact form; running from
// source compacts once at load. Pure: no I/O.

export interface RawCaniemail {
  api_version: string;
  last_update_date: string;
  nicenames: { family: Record<string, string>; platform: Record<string, string> };
  data: Array<{
    slug: string;
    title: string;
    url: string;
    category: string;
    stats: Record<string, Record<string, Record<string, string>>>;
    notes_by_num: Record<string, string> | null;
  }>;
}

/** One client's support of one feature: `y` yes, `a` partial, `n` no, `u` unknown; the tested version; note texts. */
export interface Cell {
  support: 'y' | 'a' | 'n' | 'u';
  version: string;
  notes: string[];
}

export interface CompactFeature {
  title: string;
  category: string;
  url: string;
  /**
   * Parallel to `CompactData.clients`: `<support>@<version>` plus the cited note numbers (`a@16.80#1#10`), or `''`
   * when caniemail has no result for that client. Strings, not objects: a third of the size.
   */
  cells: string[];
  /** The texts of the notes the cells cite. */
  notes: Record<string, string>;
}

export interface CompactData {
  compact: 1;
  apiVersion: string;
  lastUpdate: string;
  /** `<family>.<platform>` ids with their display names, in caniemail's order. */
  clients: Array<{ id: string; name: string }>;
  features: Record<string, CompactFeature>;
}

/** The cell of client `i` of a compact feature, decoded; null when there is no result. */
export function cellOf(f: CompactFeature, i: number): Cell | null {
  const s = f.cells[i];
  if (!s) return null;
  const [head, ...nums] = s.split('#');
  const at = head!.indexOf('@');
  return {
    support: head!.charAt(0) as Cell['support'],
    version: head!.slice(at + 1),
    notes: nums.map((n) => f.notes[n] ?? `note ${n}`),
  };
}

const isDate = (v: string) => /^(?:19|20)\d\d(?:-\d\d)?$/.test(v);
const dateValue = (v: string) => {
  const [y, m] = v.split('-');
  return Number(y) * 12 + (m ? Number(m) : 0);
};
/** Compares dotted app versions (`16.105.2` > `16.80` > `16.8`) segment by segment as numbers. */
const compareVersions = (a: string, b: string) => {
  const pa = a.split('.').map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split('.').map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
};

/**
 * The newest of a client's tested versions. caniemail keys versions by date (`2024-05`), year (`2019`) or app
 * version (`16.80`, `6.1.31.2`). Dates and years compare as dates, app versions as dotted numbers. When both kinds
 * occur, the file appends the newer kind last (Outlook for Mac: `2011`, `2016`, `16.80`) — but JSON.parse hoists
 * integer keys (`2016`) to the front, so the last key alone is not reliable: the last key's kind decides which kind
 * is newer, and the maximum of that kind wins.
 */
export function latestVersion(versions: string[]): string | undefined {
  if (versions.length === 0) return undefined;
  const last = versions[versions.length - 1]!;
  if (isDate(last)) return versions.filter(isDate).reduce((a, b) => (dateValue(b) >= dateValue(a) ? b : a));
  return versions.filter((v) => !isDate(v)).reduce((a, b) => (compareVersions(b, a) >= 0 ? b : a));
}

function encodeCell(value: string, version: string, cited: Set<string>): string {
  const letter = value.trim().charAt(0);
  const support = letter === 'y' || letter === 'a' || letter === 'n' ? letter : 'u';
  const nums = [...value.matchAll(/#(\d+)/g)].map((m) => m[1]!);
  for (const n of nums) cited.add(n);
  return `${support}@${version}${nums.map((n) => `#${n}`).join('')}`;
}

export function isCompact(data: unknown): data is CompactData {
  return typeof data === 'object' && data !== null && (data as { compact?: unknown }).compact === 1;
}

export function compactCaniemail(raw: RawCaniemail): CompactData {
  const ids: string[] = [];
  for (const f of raw.data)
    for (const [family, platforms] of Object.entries(f.stats))
      for (const platform of Object.keys(platforms)) {
        const id = `${family}.${platform}`;
        if (!ids.includes(id)) ids.push(id);
      }
  const clients = ids.map((id) => {
    const [family, platform] = id.split('.') as [string, string];
    return { id, name: `${raw.nicenames.family[family] ?? family} ${raw.nicenames.platform[platform] ?? platform}` };
  });
  const features: Record<string, CompactFeature> = {};
  for (const f of raw.data) {
    const cited = new Set<string>();
    const cells = ids.map((id) => {
      const [family, platform] = id.split('.') as [string, string];
      const byVersion = f.stats[family]?.[platform];
      const version = byVersion ? latestVersion(Object.keys(byVersion)) : undefined;
      return version === undefined ? '' : encodeCell(byVersion![version]!, version, cited);
    });
    const notes: Record<string, string> = {};
    for (const n of cited) notes[n] = f.notes_by_num?.[n] ?? `note ${n}`;
    features[f.slug] = { title: f.title, category: f.category, url: f.url, cells, notes };
  }
  return { compact: 1, apiVersion: raw.api_version, lastUpdate: raw.last_update_date, clients, features };
}
