// DKIM private keys at rest: why a stored key cannot be opened, and, at start, sealing the keys stored before
// INBOXD_SECRET_KEY was set (on SQLite the file is then rewritten so no plain copy is left in it).
import { SealedError, Sealer } from '../lib/sealed.ts';
import type { Logger } from '../log.ts';
import type { DomainRepo, DomainRow } from './repo.ts';

/** Why the row's DKIM private key cannot be opened with the current secret key, or null when it can. */
export function keyProblem(sealer: Sealer, row: DomainRow): string | null {
  try {
    sealer.open(row.dkim_private_key, row.id);
    return null;
  } catch (e) {
    if (e instanceof SealedError) return `the DKIM private key cannot be opened: ${e.message}`;
    throw e;
  }
}

/** Seals the plain keys among `rows` when a secret key is set, and logs what stays unsealed or cannot be opened. */
export async function sealStoredKeys(d: { repo: DomainRepo; sealer: Sealer; log: Logger }, rows: DomainRow[]): Promise<void> {
  const { repo, sealer, log } = d;
  let sealed = 0;
  let unopenable = 0;
  const sqlite = repo.sqlite;
  const toSeal = sealer.enabled && rows.some((r) => !Sealer.isSealed(r.dkim_private_key));
  // The plain key's old bytes are zeroed where the row is rewritten (SQLite keeps freed space as it was otherwise).
  if (toSeal && sqlite) await repo.secureDelete(true);
  for (const r of rows) {
    if (sealer.enabled && !Sealer.isSealed(r.dkim_private_key)) {
      const value = sealer.seal(r.dkim_private_key, r.id);
      await repo.setPrivateKey(r.id, value);
      sealed++;
    } else if (keyProblem(sealer, r) !== null) unopenable++;
  }
  if (toSeal && sqlite) await scrub(repo, log);
  if (rows.length > 0 && !sealer.enabled)
    log.warn('DKIM private keys of custom domains are stored unencrypted in inboxd.db (set INBOXD_SECRET_KEY to seal them)', {
      domains: rows.length,
    });
  if (sealed > 0) log.info('sealed DKIM private keys stored before INBOXD_SECRET_KEY was set', { domains: sealed });
  if (unopenable > 0)
    log.warn(
      'DKIM private keys of some custom domains cannot be opened with the current INBOXD_SECRET_KEY (missing or changed); mail from them is sent unsigned until the old key is restored or the domain is added again',
      { domains: unopenable },
    );
}

/**
 * After keys were sealed on SQLite: earlier versions of each domain row (every verify rewrote it, plain key and all)
 * may still lie in freed space of inboxd.db and in its WAL. VACUUM rewrites the file from the live rows only and the
 * WAL is then emptied, so no unsealed copy is left on disk. Once, at the start that seals them; it takes time and
 * free disk space in proportion to the database (a failure is logged and changes nothing else).
 */
async function scrub(repo: DomainRepo, log: Logger): Promise<void> {
  const started = Date.now();
  try {
    await repo.secureDelete(false);
    await repo.rewriteFile();
    log.info('rewrote inboxd.db after sealing DKIM keys, so no unsealed copy is left in free pages', { ms: Date.now() - started });
  } catch (e) {
    log.warn('could not rewrite inboxd.db after sealing DKIM keys; unsealed copies may remain in its free pages until a VACUUM', {
      err: e as Error,
    });
  }
}
