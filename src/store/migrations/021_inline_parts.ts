import { type Kysely, sql } from 'kysely';
import { attachmentCountOf } from '../../mail/inline.ts';

// Issue #27: images the HTML draws through `cid:` URLs (a logo, a signature) were counted as attachments. Ingest now
// leaves those inline parts out of `contents.attachment_count` (src/mail/inline.ts); this recounts the contents stored
// before, the ones with a part that has a Content-ID, a page of them at a time. The search index's has:attachment
// flag of those messages follows when they are indexed again.
const PAGE = 200;

export async function up(db: Kysely<unknown>): Promise<void> {
  let after = '';
  for (;;) {
    const page = await sql<{ sha256: string; html_body: string | null; attachment_count: number }>`
      select c.sha256, c.html_body, c.attachment_count from contents c
      where c.sha256 > ${after} and c.html_body is not null
        and exists (select 1 from content_attachments a where a.content_sha256 = c.sha256 and a.content_id is not null)
      order by c.sha256 limit ${PAGE}`.execute(db);
    for (const r of page.rows) {
      const parts = await sql<{ content_id: string | null }>`
        select content_id from content_attachments where content_sha256 = ${r.sha256}`.execute(db);
      const n = attachmentCountOf(
        parts.rows.map((p) => ({ contentId: p.content_id })),
        r.html_body,
      );
      if (n !== Number(r.attachment_count)) await sql`update contents set attachment_count = ${n} where sha256 = ${r.sha256}`.execute(db);
    }
    if (page.rows.length < PAGE) break;
    after = page.rows[page.rows.length - 1]!.sha256;
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`update contents set attachment_count =
    (select count(*) from content_attachments a where a.content_sha256 = contents.sha256)`.execute(db);
}
