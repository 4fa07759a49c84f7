// The data directory: created private (0700, files 0600 whatever the umask), checked writable with a real write,
// and locked so that one data dir has one server (CONTRACT §1, §2).
import fs from 'node:fs';
import path from 'node:path';

export const LOCK_FILE = 'inboxd.lock';

/** Why the data dir cannot be used, as one line for the operator; thrown by prepare and lock. */
export class DataDirError extends Error {
  override name = 'DataDirError';
}

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EEXIST: 'it is a file, not a directory',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exhausted',
  ENOENT: 'it cannot be created there',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the path is too long',
};

function reason(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  return code ? `${REASONS[code] ?? 'it cannot be used'} (${code})` : (e as Error).message;
}

/**
 * Creates the directory (each missing part 0700) and proves it writable by writing a file. Every file the process
 * creates from now on is private: the umask gains 077 (process-wide, so SQLite's -wal/-shm and the blobs are too).
 */
export function prepareDataDir(dir: string): void {
  const old = process.umask(0o077);
  process.umask(old | 0o077);
  const abs = path.resolve(dir);
  const fail = (e: unknown): never => {
    throw new DataDirError(`--data-dir ${dir}: ${reason(e)}; point --data-dir at a writable directory`);
  };
  // Not mkdirSync({recursive: true}): on paths such as /proc/x it loops forever on ENOENT instead of failing.
  const missing: string[] = [];
  let p = abs;
  for (;;) {
    try {
      if (!fs.statSync(p).isDirectory()) fail(Object.assign(new Error(), { code: p === abs ? 'EEXIST' : 'ENOTDIR' }));
      break;
    } catch (e) {
      if (e instanceof DataDirError) throw e;
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || path.dirname(p) === p) fail(e);
      missing.unshift(p);
      p = path.dirname(p);
    }
  }
  for (const m of missing) {
    try {
      fs.mkdirSync(m, { mode: 0o700 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') fail(e);
    }
  }
  const probe = path.join(abs, `.write-test-${process.pid}`);
  try {
    fs.writeFileSync(probe, 'ok', { mode: 0o600 });
    fs.rmSync(probe, { force: true });
  } catch (e) {
    fail(e);
  }
}

export interface DataDirLock {
  /** Removes the lock file if it is still ours. Idempotent. */
  release(): void;
}

/** Data dirs this process holds: a lock naming our own pid is live only if it is in here (a container's pid 1 restarts). */
const held = new Set<string>();

/**
 * Takes `<dir>/inboxd.lock` holding our pid. The file is written complete under a temporary name and hard-linked
 * into place, which fails atomically when a lock exists. A lock naming a dead process is taken over.
 */
export function lockDataDir(dir: string): DataDirLock {
  const abs = path.resolve(dir);
  const file = path.join(abs, LOCK_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${process.pid}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        fs.linkSync(tmp, file);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 5) throw e;
      }
      const pid = readPid(file);
      if (pid !== null && isRunning(pid, abs)) {
        throw new DataDirError(
          `--data-dir ${dir} is in use by inboxd process ${pid} (lock ${file}); stop that process or choose another --data-dir`,
        );
      }
      // Stale: move it aside under a name of our own (only one contender's rename succeeds), then check that what we
      // moved is the stale lock we judged and not a fresh one someone took meanwhile; put a fresh one back.
      const aside = `${file}.stale.${process.pid}`;
      try {
        fs.renameSync(file, aside);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw e;
      }
      const moved = readPid(aside);
      if (moved !== pid) {
        try {
          fs.linkSync(aside, file);
        } catch {
          // someone else holds it now; the next attempt reads who
        }
      }
      fs.rmSync(aside, { force: true });
    }
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  held.add(abs);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      held.delete(abs);
      if (readPid(file) === process.pid) fs.rmSync(file, { force: true });
    },
  };
}

function readPid(file: string): number | null {
  try {
    const n = Number.parseInt(fs.readFileSync(file, 'utf8').trim(), 10);
    return Number.isSafeInteger(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
}

function isRunning(pid: number, dir: string): boolean {
  if (pid === process.pid) return held.has(dir);
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
