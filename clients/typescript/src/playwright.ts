// The Playwright fixture: `test.extend(inboxFixture())` gives every test its own inbox, labelled by the test's title,
// and deletes it when the test ends. Written against the shape of @playwright/test's fixtures (a function
// `({}, use, testInfo)`), typed structurally so that this package needs no dependency on Playwright at all.
import { type ClientOptions, type CreateInboxOptions, type Inbox, InboxdClient } from './index.ts';

/** The part of Playwright's TestInfo the fixture reads. */
export interface FixtureTestInfo {
  title: string;
  titlePath?: readonly string[];
  /** Set by the runner when the test has ended (read at teardown for keepOnFailure). */
  status?: string;
  expectedStatus?: string;
}

export interface InboxFixtureOptions extends ClientOptions {
  /** Put before every label, e.g. the prefix a scoped key requires (`ci-4711/`). */
  labelPrefix?: string;
  /** Further fields of the created inbox (ttlMinutes, localPart, checks, …). */
  create?: Omit<CreateInboxOptions, 'label'>;
  /** Leave the inbox after a failed test for a look in the console (default false: always delete). */
  keepOnFailure?: boolean;
}

/** The fixtures inboxFixture() adds: `base.extend<InboxFixtures>(inboxFixture())`. */
export interface InboxFixtures {
  inbox: Inbox;
}

/** Labels are 1–200 printable ASCII characters: anything else in a title becomes `?`, long titles are cut. */
export function labelFor(title: string, prefix = ''): string {
  const clean = `${prefix}${title}`.replace(/[^\x20-\x7e]/g, '?').trim();
  return (clean || `${prefix}test`).slice(0, 200);
}

type Use<T> = (value: T) => Promise<void>;

/**
 * `{ inbox }` for `test.extend`. The client reads INBOXD_URL and INBOXD_KEY unless `options` name them; the inbox
 * is created before the test (label: the test's title) and deleted after it, also when the test fails or times out.
 */
export function inboxFixture(options: InboxFixtureOptions = {}) {
  const { labelPrefix, create, keepOnFailure, ...clientOptions } = options;
  let client: InboxdClient | undefined;
  return {
    // Playwright reads the first parameter's destructuring to learn a fixture's dependencies: it must be `{}`.
    // biome-ignore lint/correctness/noEmptyPattern: the shape @playwright/test requires
    inbox: async ({}: object, use: Use<Inbox>, testInfo: FixtureTestInfo) => {
      client ??= new InboxdClient(clientOptions);
      const inbox = await client.createInbox({ ...create, label: labelFor(testInfo.title, labelPrefix) });
      try {
        await use(inbox);
      } finally {
        const failed = testInfo.status !== undefined && testInfo.status !== testInfo.expectedStatus;
        if (!(keepOnFailure && failed)) await inbox.delete({ missingOk: true });
      }
    },
  };
}
