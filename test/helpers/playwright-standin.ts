// A stand-in for the part of @playwright/test that clients/typescript/examples/*.spec.ts uses, so that `npm test` runs
// the example exactly as written without the Playwright test runner (not a dependency of inboxd): `test`,
// `test.extend(fixtures)`, the `page` fixture (a fresh context of a playwright-core browser), and `expect` with
// `toBe` and a polling `toHaveAttribute`. Fixtures run as Playwright runs them: `fixture(deps, use, testInfo)`, set up
// in order before the body and torn down in reverse after it, also when the body fails.
// `registerStandin()` maps `@playwright/test` and `@inboxd/client[/playwright]` to this file and the client's sources.
import assert from 'node:assert/strict';
import module from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';

type Use = (value: unknown) => Promise<void>;
type Fixture = (deps: Record<string, unknown>, use: Use, info: StandinTestInfo) => Promise<void>;
type Body = (fixtures: Record<string, any>, info: StandinTestInfo) => Promise<void>;
/** Typed like @playwright/test's: the body sees the base fixtures and every extension's, each fixture a function
 * `(deps, use, testInfo)` whose `use` takes the fixture's type. */
type FixtureFns<T> = { [K in keyof T]: (deps: object, use: (value: T[K]) => Promise<void>, info: StandinTestInfo) => Promise<void> };
export type StandinTest<F> = ((title: string, body: (fixtures: F, info: StandinTestInfo) => Promise<void>) => void) & {
  extend<T>(fixtures: FixtureFns<T>): StandinTest<F & T>;
};

export interface StandinTestInfo {
  title: string;
  titlePath: string[];
  status?: 'passed' | 'failed';
  expectedStatus: 'passed';
}
export interface StandinResult {
  title: string;
  status: 'passed' | 'failed';
  error?: unknown;
  /** The fixture values the body received (to check what they did afterwards). */
  fixtures: Record<string, unknown>;
}

const registered: { title: string; fixtures: Record<string, Fixture>; body: Body }[] = [];
let browser: Browser | null = null;

function make<F>(fixtures: Record<string, Fixture>): StandinTest<F> {
  const t = (title: string, body: Body) => {
    registered.push({ title, fixtures, body });
  };
  t.extend = <T>(more: FixtureFns<T>) => make<F & T>({ ...fixtures, ...(more as unknown as Record<string, Fixture>) });
  return t as unknown as StandinTest<F>;
}

export const test = make<{ page: Page }>({
  // biome-ignore lint/correctness/noEmptyPattern: the fixture shape of @playwright/test
  page: async ({}, use) => {
    assert.ok(browser, 'runStandin() sets the browser');
    const context = await browser.newContext();
    try {
      await use(await context.newPage());
    } finally {
      await context.close();
    }
  },
});

export function expect(actual: any) {
  return {
    toBe: (expected: unknown) => assert.equal(actual, expected),
    async toHaveAttribute(name: string, expected: string, options: { timeout?: number } = {}) {
      const deadline = Date.now() + (options.timeout ?? 5000);
      let seen: string | null = null;
      while (Date.now() < deadline) {
        seen = await actual.getAttribute(name, { timeout: 1000 }).catch(() => null);
        if (seen === expected) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.fail(`expected attribute ${name}="${expected}", got ${JSON.stringify(seen)}`);
    },
  };
}

/** Runs every test the imported spec files registered, one after another, in a context of `b`. */
export async function runStandin(b: Browser, file: string): Promise<StandinResult[]> {
  browser = b;
  const results: StandinResult[] = [];
  for (const { title, fixtures, body } of registered.splice(0)) {
    const info: StandinTestInfo = { title, titlePath: [path.basename(file), title], expectedStatus: 'passed' };
    const values: Record<string, unknown> = {};
    const names = Object.keys(fixtures);
    const step = async (i: number): Promise<void> => {
      if (i === names.length) {
        try {
          await body(values, info);
          info.status = 'passed';
        } catch (err) {
          info.status = 'failed';
          throw err;
        }
        return;
      }
      await fixtures[names[i]!]!(
        values,
        async (v) => {
          values[names[i]!] = v;
          await step(i + 1);
        },
        info,
      );
    };
    try {
      await step(0);
      results.push({ title, status: 'passed', fixtures: values });
    } catch (error) {
      results.push({ title, status: 'failed', error, fixtures: values });
    }
  }
  return results;
}

let registeredHooks = false;
/** Resolves `@playwright/test` to this stand-in and `@inboxd/client` to clients/typescript/src (once per process). */
export function registerStandin(root: string): void {
  if (registeredHooks) return;
  registeredHooks = true;
  const map: Record<string, string> = {
    '@playwright/test': pathToFileURL(import.meta.filename).href,
    '@inboxd/client': pathToFileURL(path.join(root, 'clients/typescript/src/index.ts')).href,
    '@inboxd/client/playwright': pathToFileURL(path.join(root, 'clients/typescript/src/playwright.ts')).href,
  };
  module.registerHooks({
    resolve(specifier, context, next) {
      const url = map[specifier];
      return url ? { url, shortCircuit: true } : next(specifier, context);
    },
  });
}
