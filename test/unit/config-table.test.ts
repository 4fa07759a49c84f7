// The option table is the one definition of every setting: each row is complete, its default goes through its own
// schema, --help shows every row in table order, and the Config type is read off the rows (checked by `tsc`).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import type { DerivedValues } from '../../src/config/derived.ts';
import { BASIC_OPTIONS } from '../../src/config/options/basics.ts';
import { CONNECTION_OPTIONS } from '../../src/config/options/connections.ts';
import { INTEGRATION_OPTIONS } from '../../src/config/options/integrations.ts';
import { WORKER_OPTIONS } from '../../src/config/options/workers.ts';
import { OPTION_DEFS, OPTION_KEYS } from '../../src/config/options.ts';
import { type Config, loadConfig, OPTIONS, type OptionEntry, type OptionKey, optionsHelp } from '../../src/config.ts';

describe('the option table', () => {
  it('has a flag, an environment variable and help text in every row, none of them shared', () => {
    const parts = [BASIC_OPTIONS, WORKER_OPTIONS, CONNECTION_OPTIONS, INTEGRATION_OPTIONS];
    assert.equal(
      OPTION_KEYS.length,
      parts.map((p) => Object.keys(p).length).reduce((a, b) => a + b),
      'no key in two parts',
    );
    assert.ok(OPTION_KEYS.length >= 80);
    for (const key of OPTION_KEYS) {
      const o = OPTION_DEFS[key];
      assert.match(o.flag, /^--[a-z][a-z0-9-]*$/, key);
      assert.match(o.env, /^INBOXD_[A-Z][A-Z0-9_]*$/, key);
      assert.ok(o.help.trim().length > 10, `${key} has help`);
      if (o.arg !== undefined) assert.ok(o.arg.length > 0, `${key} arg`);
    }
    assert.equal(new Set(OPTION_KEYS.map((k) => OPTION_DEFS[k].flag)).size, OPTION_KEYS.length, 'flags are unique');
    assert.equal(new Set(OPTION_KEYS.map((k) => OPTION_DEFS[k].env)).size, OPTION_KEYS.length, 'variables are unique');
  });

  it('parses every default through its own schema, and an unset option gets exactly that value', () => {
    const config = loadConfig([], {});
    for (const key of OPTION_KEYS) {
      const o = OPTION_DEFS[key];
      const r = o.schema.safeParse(o.default);
      assert.ok(r.success, `${key}: default ${JSON.stringify(o.default)} → ${r.error?.issues[0]?.message}`);
      assert.deepEqual(config[key], r.data, key);
      if (o.default === undefined) assert.equal(config[key], undefined, `${key} is unset without a default`);
    }
  });

  it('gives a bare switch to boolean options only, and a value to the rest', () => {
    for (const key of OPTION_KEYS) {
      const o = OPTION_DEFS[key];
      assert.equal(o.arg === undefined, typeof o.default === 'boolean', `${key}: a switch has no ARG and a boolean default`);
    }
  });

  it('--help lists every option in table order with its flag, ARG, help, default and variable', () => {
    const lines = optionsHelp().split('\n');
    assert.equal(lines.length, 2 * OPTION_KEYS.length, 'two lines per option, nothing else');
    OPTION_KEYS.forEach((key, i) => {
      const o = OPTION_DEFS[key];
      const dflt = o.default === undefined ? '' : ` [default: ${String(o.default)}]`;
      assert.equal(lines[2 * i], `${`  ${o.flag}${o.arg ? ' ' + o.arg : ''}`.padEnd(34)} ${o.help}${dflt}`, key);
      assert.equal(lines[2 * i + 1], `${' '.repeat(35)}env ${o.env}`, key);
    });
  });

  it('builds a Config with every option and derived field', () => {
    const config = loadConfig([], {});
    const derived: Array<keyof DerivedValues> = ['adminKey', 'blobStoreCredentials', 'databasePassword', 'secretKey'];
    for (const key of [...OPTION_KEYS, ...derived]) assert.ok(Object.hasOwn(config, key), key);
  });
});

// Type-level checks: `npm run typecheck` fails here when Config loses a field or a field changes type.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const everyOptionIsAField: Equal<Exclude<OptionKey, keyof Config>, never> = true;
const onlyDerivedFieldsBesides: Equal<
  Exclude<keyof Config, OptionKey>,
  | 'blobStoreCredentials'
  | 'mailgunSigningKey'
  | 'smtpRelayUser'
  | 'smtpRelayPassword'
  | 'databasePassword'
  | 'adminKey'
  | 'billingSecretKey'
  | 'openaiApiKey'
  | 'anthropicApiKey'
  | 'secretKey'
> = true;
const fieldTypes: [
  Equal<Config['httpPort'], number>,
  Equal<Config['domains'], string[]>,
  Equal<Config['baseUrl'], string | undefined>,
  Equal<Config['noFsync'], boolean>,
  Equal<Config['ingestThreads'], number>,
  Equal<Config['smtpAuth'], 'any' | 'required' | 'off'>,
  Equal<Config['logLevel'], 'debug' | 'info' | 'warn' | 'error' | 'silent'>,
  Equal<Config['inboundWebhooks'], string[]>,
  Equal<Config['adminKey'], string | undefined>,
] = [true, true, true, true, true, true, true, true, true];
const sample = {
  smtpPort: 25,
  host: '0.0.0.0',
  mcpAllowedOrigins: [],
  smtpRelay: undefined,
  logFormat: 'pretty',
  blobStoreCredentials: { accessKeyId: 'k', secretAccessKey: 's' },
} satisfies Partial<Config>;
function readsOnlyRealFields(c: Config): number {
  // @ts-expect-error a field that is not in the table is not in Config
  return c.httpPortt ?? c.httpPort;
}
// @ts-expect-error an option without a default needs an optional schema (its field may be undefined)
const noDefault: OptionEntry = { flag: '--x', env: 'INBOXD_X', arg: 'X', help: 'x', schema: z.string() };
void [everyOptionIsAField, onlyDerivedFieldsBesides, fieldTypes, sample, readsOnlyRealFields, noDefault, OPTIONS];
