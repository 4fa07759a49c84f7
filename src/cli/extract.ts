// `inboxd extract FILE.eml [--service NAME]`: what the service would extract from one message, as one line
// of JSON on stdout. No server, no data directory. Exit 0 ok · 1 unreadable/unparseable file · 2 bad usage.

import { readFile } from 'node:fs/promises';
import { didYouMean } from '../lib/suggest.ts';
import { extractVerification, primaryActionFor } from '../mail/extract/index.ts';
import { parseMessage } from '../mail/parse.ts';
import type { PresetId } from '../mail/presets.ts';
import { getPreset, isPresetId, PRESET_IDS } from '../mail/presets.ts';
import { structuredCommand } from './extract-structured.ts';

const USAGE =
  'usage: inboxd extract FILE.eml [--service NAME] | inboxd extract (--preset 2fa|invoice|receipt | --schema FILE.json) FILE.eml';

export async function extractCommand(
  argv: string[],
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  let file: string | null = null;
  let service: PresetId | undefined;
  let preset: string | undefined;
  let schemaFile: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--preset' || a.startsWith('--preset=') || a === '--schema' || a.startsWith('--schema=')) {
      const isPreset = a.startsWith('--preset');
      const name = isPreset ? '--preset' : '--schema';
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (v === undefined || v === '') {
        err.write(`inboxd extract: ${name} needs a value\n`);
        return 2;
      }
      if (isPreset) preset = v;
      else schemaFile = v;
      continue;
    }
    if (a === '--help' || a === '-h') {
      out.write(USAGE + '\n');
      return 0;
    }
    if (a === '--service' || a.startsWith('--service=')) {
      const v = a.startsWith('--service=') ? a.slice('--service='.length) : argv[++i];
      if (v === undefined || v === '') {
        err.write(`inboxd extract: --service needs a value (one of: ${PRESET_IDS.join(', ')})\n`);
        return 2;
      }
      const name = v.toLowerCase();
      if (!isPresetId(name)) {
        err.write(`inboxd extract: unknown service '${v}'${didYouMean(v, PRESET_IDS)}; valid names: ${PRESET_IDS.join(', ')}\n`);
        return 2;
      }
      service = name;
      continue;
    }
    if (a.startsWith('-') && a !== '-') {
      const flag = a.includes('=') ? a.slice(0, a.indexOf('=')) : a;
      err.write(`inboxd extract: unknown option '${flag}'${didYouMean(flag, ['--service', '--preset', '--schema', '--help'])}. ${USAGE}\n`);
      return 2;
    }
    if (file !== null) {
      err.write(`inboxd extract: only one file can be given ('${a}'). ${USAGE}\n`);
      return 2;
    }
    file = a;
  }
  if (file === null) {
    err.write(`inboxd extract: missing FILE.eml. ${USAGE}\n`);
    return 2;
  }

  if (preset !== undefined || schemaFile !== undefined) {
    if (service !== undefined) {
      err.write('inboxd extract: --service cannot be combined with --preset or --schema\n');
      return 2;
    }
    return structuredCommand(file, { preset, schemaFile }, out, err);
  }

  let raw: Buffer;
  try {
    raw = file === '-' ? await readStdin() : await readFile(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (e as Error).message;
    err.write(`inboxd extract: cannot read ${file}: ${why}\n`);
    return 1;
  }

  let result: unknown;
  try {
    const msg = await parseMessage(raw);
    const x = extractVerification(msg, service ? { service } : {});
    const serviceName = x.service ? getPreset(x.service).displayName : undefined;
    const action = primaryActionFor(x, serviceName ? { rawUrl: null, serviceName } : { rawUrl: null });
    const attachments = msg.attachments; // same count as the server's attachmentCount
    result = {
      verification: { otp: x.otp, primaryLink: x.primaryLink, primaryLinkUnwrapped: x.primaryLinkUnwrapped },
      agent: { primaryAction: action },
      service: x.service,
      candidates: x.candidates,
      hasAttachments: attachments.length > 0,
      attachmentCount: attachments.length,
    };
  } catch (e) {
    err.write(`inboxd extract: cannot parse ${file}: ${(e as Error).message}\n`);
    return 1;
  }
  out.write(JSON.stringify(result) + '\n');
  return 0;
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
