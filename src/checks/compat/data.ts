// The caniemail data the compat check reads, built into the executable (MIT; ./data/LICENSE). From source the full
// vendored file is compacted once at load; the executable's bundle already holds the compact form (scripts/build.ts
// runs compactCaniemail over this import), so both paths give the same CompactData.

import type { CompactData, RawCaniemail } from './compact.ts';
import { compactCaniemail, isCompact } from './compact.ts';
import raw from './data/caniemail.json' with { type: 'json' };

export const CANIEMAIL: CompactData = isCompact(raw) ? raw : compactCaniemail(raw as unknown as RawCaniemail);

/** caniemail's own data date (`last_update_date`), for discovery (`/v1/info`, `inboxd check --help`). */
export const CANIEMAIL_DATA_DATE: string = CANIEMAIL.lastUpdate;
/** The data's api version and date in one string, for a report's `dataVersion` cache key. */
export const CANIEMAIL_DATA_VERSION = `caniemail ${CANIEMAIL.apiVersion} ${CANIEMAIL.lastUpdate}`;
