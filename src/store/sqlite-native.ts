// Locating better-sqlite3's native addon, both under plain Node and inside the single executable (Node SEA).
//
// Plain `node src/main.ts`: better-sqlite3 finds its own prebuild in node_modules, so we pass nothing.
// SEA (`dist/inboxd`): a SEA cannot `require()` a `.node` file, so scripts/build.ts embeds the addon as the SEA asset
// `better_sqlite3.node`. At first use we write it once to a per-user, content-addressed cache folder
// (`${os.tmpdir()}/inboxd-<uid>/native/<sha256-prefix>/better_sqlite3.node`, or `$INBOXD_NATIVE_CACHE_DIR/<prefix>/…`
// for hosts whose /tmp is mounted noexec), `process.dlopen` it and hand the loaded module to better-sqlite3:
//
//   new Database(file, { ...nativeBindingOption() })
//
// `node:sea` is reached through `process.getBuiltinModule`, which works the same in the native ESM sources and in the
// esbuild CommonJS bundle (where `createRequire(import.meta.url)` does not).

import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';

/** SEA asset key under which scripts/build.ts embeds node_modules/better-sqlite3/prebuilds/<platform>-<arch>.node. */
export const NATIVE_ASSET_KEY = 'better_sqlite3.node';
/** Environment variable that overrides the extraction folder (e.g. when /tmp is mounted noexec). */
export const NATIVE_CACHE_ENV = 'INBOXD_NATIVE_CACHE_DIR';

/**
 * What `nativeBindingOption()` returns. At run time `nativeBinding` is the loaded addon object, which better-sqlite3 13
 * accepts ("string or addon object"); @types/better-sqlite3 9.6 still types the option as a path string, so the type is
 * borrowed from there to keep `new Database(file, { ...nativeBindingOption(), … })` type-correct without casts.
 */
export type NativeBindingOption = Pick<BetterSqlite3.Options, 'nativeBinding'>;

let loaded: NativeBindingOption | undefined;

/** True when this process is the single executable (dist/inboxd). */
export function isSingleExecutable(): boolean {
  const sea = process.getBuiltinModule('node:sea');
  return sea?.isSea();
}

/**
 * Options to spread into `new Database(file, …)`: `{}` under plain Node, `{ nativeBinding }` inside the SEA.
 * The addon is extracted and loaded at most once per process.
 */
export function nativeBindingOption(): NativeBindingOption {
  if (loaded) return loaded;
  if (!isSingleExecutable()) {
    loaded = {};
    return loaded;
  }
  const sea = process.getBuiltinModule('node:sea');
  let asset: Uint8Array;
  try {
    asset = new Uint8Array(sea.getRawAsset(NATIVE_ASSET_KEY));
  } catch (err) {
    throw new Error(
      `inboxd: the SQLite native addon asset "${NATIVE_ASSET_KEY}" is missing from this executable (${errMessage(err)}); rebuild it with npm run build`,
    );
  }
  const file = extractAddon(asset);
  const mod: { exports: unknown } = { exports: {} };
  try {
    process.dlopen(mod, file);
  } catch (err) {
    throw new Error(
      `inboxd: cannot load the SQLite native addon from ${file}: ${errMessage(err)}. ` +
        `If that folder is on a noexec filesystem, set ${NATIVE_CACHE_ENV} to a folder that allows executable mappings.`,
    );
  }
  loaded = { nativeBinding: mod.exports as NativeBindingOption['nativeBinding'] };
  return loaded;
}

/** Writes the addon to its content-addressed cache path (once) and returns that path. */
function extractAddon(asset: Uint8Array): string {
  const hash = createHash('sha256').update(asset).digest('hex').slice(0, 16);
  const override = process.env[NATIVE_CACHE_ENV];
  const uid = typeof process.getuid === 'function' ? String(process.getuid()) : os.userInfo().username;
  const userRoot = override ? path.resolve(override) : path.join(os.tmpdir(), `inboxd-${uid}`);
  const root = override ? userRoot : path.join(userRoot, 'native');
  const dir = path.join(root, hash);
  const file = path.join(dir, NATIVE_ASSET_KEY);

  try {
    mkdirPrivate(dir);
    if (!override) assertPrivateDir(userRoot);
    const existing = fs.statSync(file, { throwIfNoEntry: false });
    // Only complete files ever appear under the final name (temp name + rename), in a folder named by the content
    // hash, so a file of the right size is the right file.
    if (existing?.isFile() && existing.size === asset.byteLength) return file;

    const tmp = path.join(dir, `.${NATIVE_ASSET_KEY}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      const fd = fs.openSync(tmp, 'wx', 0o700);
      try {
        fs.writeSync(fd, asset);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tmp, file);
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      throw err;
    }
    return file;
  } catch (err) {
    if (err instanceof NativeCacheError) throw err;
    throw new NativeCacheError(
      `inboxd: cannot write the SQLite native addon to ${dir} (${errMessage(err)}). ` +
        `Set ${NATIVE_CACHE_ENV} to a writable folder (not mounted noexec).`,
    );
  }
}

/** `mkdir -p` with mode 0700 for each folder it creates. (Not `recursive: true`: Node 24 loops forever on some
 * unwritable parents, e.g. under /proc.) */
function mkdirPrivate(dir: string): void {
  const missing: string[] = [];
  for (let d = dir; !fs.existsSync(d); d = path.dirname(d)) {
    missing.push(d);
    if (path.dirname(d) === d) break;
  }
  for (const d of missing.reverse()) {
    try {
      fs.mkdirSync(d, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/** The default folder lives in a shared /tmp: refuse one that another user created or can write to. */
function assertPrivateDir(dir: string): void {
  const st = fs.lstatSync(dir);
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0) {
    throw new NativeCacheError(
      `inboxd: refusing to use ${dir} for the SQLite native addon: it is not a private folder owned by this user. ` +
        `Remove it, or set ${NATIVE_CACHE_ENV} to another folder.`,
    );
  }
}

class NativeCacheError extends Error {}

function errMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
