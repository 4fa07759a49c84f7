// Two version numbers (README "Releases and installing"):
//   VERSION  the service's API version, what the spec requires GET /health, /v1, the OpenAPI document, MCP's
//            serverInfo and the metrics report: 0.2.0, changed only with the spec.
//   RELEASE  the product's own release version (archives, npm packages, clients; semver, CHANGELOG.md): the
//            "version" field of package.json, the one place to bump it. `inboxd --version` prints it.
// The build (scripts/build.ts) stamps the release, the commit and the build date into the executable; running from
// source, the release is read from package.json and the commit asked from git when `inboxd version` runs.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { codeCache } from './lib/worker-source.ts';

export const NAME = 'inboxd';
export const VERSION = '0.2.0';

export interface BuildInfo {
  /** Product release version (package.json "version"). */
  release: string;
  /** Git commit the executable was built from (12 hex digits, `-dirty` when the work tree had changes), or null. */
  commit: string | null;
  /** ISO 8601 build date (SOURCE_DATE_EPOCH when set), or null when running from source. */
  date: string | null;
}

// Replaced by esbuild's `define` in the executable (scripts/build.ts); a plain identifier lookup from source.
declare const __INBOXD_BUILD_INFO__: BuildInfo | undefined;

const stamped: BuildInfo | undefined = typeof __INBOXD_BUILD_INFO__ === 'undefined' ? undefined : __INBOXD_BUILD_INFO__;

function sourceRoot(): string {
  return path.resolve(import.meta.dirname, '..');
}

/** The product release version: stamped into the executable, else package.json's "version" (from source). */
export const RELEASE: string =
  stamped?.release ?? (JSON.parse(fs.readFileSync(path.join(sourceRoot(), 'package.json'), 'utf8')) as { version: string }).version;

/** Version, commit and build date. From source the commit comes from git (only when asked: it starts a process). */
export function buildInfo(): BuildInfo {
  if (stamped) return stamped;
  const git = spawnSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: sourceRoot(), encoding: 'utf8' });
  return { release: RELEASE, commit: git.status === 0 ? git.stdout.trim() : null, date: null };
}

/**
 * What the single executable's main (scripts/build/sea-main.cjs) says of the V8 code cache it started with: `used`,
 * `rejected` (V8 refused it — the executable run with other V8 flags through --node-options — and compiled the code
 * instead) or `none` (built with --no-code-cache). From source there is none.
 */
export function codeCacheState(): string {
  const s = codeCache();
  if (!s) return '- (running from source)';
  if (s.state === 'used') return `used (${(s.bytes / 1024 / 1024).toFixed(1)} MB)`;
  if (s.state === 'rejected') return 'rejected by V8 (run with other V8 flags?): the code is compiled at start';
  return 'none (built with --no-code-cache)';
}
