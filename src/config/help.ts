// The options part of `inboxd --help`: one row per option in table order, its default as written in the table.
import { OPTION_DEFS, OPTION_KEYS } from './options.ts';

export function optionsHelp(): string {
  const rows = OPTION_KEYS.map((key) => {
    const o = OPTION_DEFS[key];
    const left = `  ${o.flag}${o.arg ? ' ' + o.arg : ''}`;
    const dflt = o.default === undefined ? '' : ` [default: ${String(o.default)}]`;
    return `${left.padEnd(34)} ${o.help}${dflt}\n${''.padEnd(35)}env ${o.env}`;
  });
  return rows.join('\n');
}
