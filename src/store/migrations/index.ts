// Ordered migrations, listed statically so the single-executable bundle carries them (no folder scan at run time).
// Never edit a migration that has shipped: add the next file.
import type { Migration } from 'kysely/migration';
import * as m001 from './001_foundation.ts';
import * as m002 from './002_mail.ts';
import * as m003a from './003_access.ts';
import * as m003e from './003_events.ts';
import * as m009 from './009_runs.ts';

export const MIGRATIONS: Record<string, Migration> = {
  '001_foundation': m001,
  '002_mail': m002,
  '003_access': m003a,
  '003_events': m003e,
  '009_runs': m009,
};
