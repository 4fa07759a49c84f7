// Bytes the data dir holds: the SQLite database (with its WAL and shared-memory files) and the blob folder (segment
// files, blobs kept as files before migration 010, temp files). Walking the blob folder can touch many files on an
// old store, so the answer is kept for a while: a scrape every few seconds costs one walk per CACHE_MS.
// On PostgreSQL (--database) there is no database file here: the size is PostgreSQL's own count of the database's
// bytes (pg_database_size), reported as part="postgres" instead of part="sqlite".
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Dialect } from '../store/dialect.ts';

const CACHE_MS = 30_000;

export interface StoreSize {
  sqlite?: number;
  postgres?: number;
  blobs: number;
}

export class StoreSizer {
  private readonly dbFile: string;
  private readonly blobDir: string;
  private readonly now: () => number;
  private readonly database: { dialect: Dialect; bytes(): Promise<number> } | null;
  private cached: { at: number; size: Promise<StoreSize> } | null = null;

  /** `database`: the store's own measure (Store.sizeBytes); PostgreSQL's is the only one used (no file here). */
  constructor(o: { dbFile: string; blobDir: string; now?: () => number; database?: { dialect: Dialect; bytes(): Promise<number> } }) {
    this.dbFile = o.dbFile;
    this.blobDir = o.blobDir;
    this.now = o.now ?? Date.now;
    this.database = o.database?.dialect === 'postgres' ? o.database : null;
  }

  measure(): Promise<StoreSize> {
    const t = this.now();
    if (!this.cached || t - this.cached.at >= CACHE_MS || t < this.cached.at) this.cached = { at: t, size: this.walk() };
    return this.cached.size;
  }

  private async walk(): Promise<StoreSize> {
    if (this.database) return { postgres: await this.database.bytes(), blobs: await dirSize(this.blobDir) };
    let sqlite = 0;
    for (const suffix of ['', '-wal', '-shm']) sqlite += await sizeOf(this.dbFile + suffix);
    return { sqlite, blobs: await dirSize(this.blobDir) };
  }
}

async function sizeOf(file: string): Promise<number> {
  try {
    return (await fs.stat(file)).size;
  } catch {
    return 0; // not there (no WAL yet) or removed meanwhile
  }
}

async function dirSize(dir: string): Promise<number> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  let total = 0;
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) total += await dirSize(p);
    else if (e.isFile()) total += await sizeOf(p);
  }
  return total;
}
