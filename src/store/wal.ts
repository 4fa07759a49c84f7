// Durability helpers for SQLite files kept with synchronous=NORMAL (the main database, blobs/index.db): their WAL is
// fsynced by inboxd itself on the thread pool, and their folder once so the files are found again after a power loss.
import fs from 'node:fs';

/**
 * fsync of the WAL through an fd of our own: fsync flushes the file (the inode), whichever descriptor asks. The fd is
 * opened once the WAL exists and kept: SQLite replaces the WAL file only when the last connection closes (it then
 * deletes it), and this connection stays open for the life of the process (restarts and truncations keep the inode).
 */
export function walSyncer(walPath: string) {
  let fd: number | null = null;
  return {
    sync(): Promise<void> {
      if (fd === null) {
        try {
          fd = fs.openSync(walPath, 'r');
        } catch (e) {
          // No WAL yet: nothing has been committed through it.
          if ((e as NodeJS.ErrnoException).code === 'ENOENT') return Promise.resolve();
          throw e;
        }
      }
      const f = fd;
      return new Promise<void>((res, rej) => fs.fsync(f, (e) => (e ? rej(e) : res())));
    },
    close(): void {
      if (fd !== null) fs.closeSync(fd);
      fd = null;
    },
  };
}

export function syncFolder(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // a folder that cannot be opened for reading: the next checkpoint's syncs still cover the files themselves
  }
}
