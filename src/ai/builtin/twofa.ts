// The `2fa` preset: code and link from the verification extractor (src/mail/extract), the service it is for,
// and the stated validity in minutes. A message with neither a code nor a link has all four fields null.

import { extractVerification } from '../../mail/extract/index.ts';
import { getPreset } from '../../mail/presets.ts';
import type { ParsedMessage } from '../../mail/types.ts';
import { cleanSender } from './commerce.ts';
import type { MessageView } from './view.ts';

export interface TwoFaData {
  code: string | null;
  link: string | null;
  service: string | null;
  expiresInMinutes: number | null;
}

const VALIDITY =
  /expir|valid|gültig|läuft|ablauf|verfällt|expira|caduca|válid|vence|valable|expire|scad|valido|giltig|geldig|vervalt|verloopt|有効|期限|만료|유효|ważn|wygas|for the next|within|only works for|in the next/i;
const UNIT =
  /(\d{1,4}|one|an|a|une|un|una|uno|eine?|ein|en|ett|één|een)\s*[-\s]?(minutes?|mins?\b|minuten|minutos?|minuti|minuter|minutter|minut|minuuttia|分|분|hours?|hrs?\b|stunden?|std\b|heures?|horas?|ore\b|ora\b|timmar|timme|timer|uur|時間|시간|days?\b|tage?n?\b|jours?|días?|dias?|giorni|giorno|dagar|dag\b|dagen|日間)/i;

function minutes(n: number, unit: string): number {
  const u = unit.toLowerCase();
  if (/^(?:hour|hr|stund|std|heure|hora|ore|ora|timm|timer|uur|時間|시간)/.test(u)) return n * 60;
  if (/^(?:day|tag|jour|día|dia|giorn|dag|日間)/.test(u)) return n * 1440;
  return n;
}

export function expiresIn(lines: string[]): number | null {
  for (const l of lines) {
    if (!VALIDITY.test(l)) continue;
    const m = UNIT.exec(l);
    if (!m) continue;
    const n = /^\d+$/.test(m[1]!) ? Number(m[1]) : 1;
    if (n > 0) return minutes(n, m[2]!);
  }
  return null;
}

export function extractTwoFa(msg: ParsedMessage, v: MessageView): TwoFaData {
  const x = extractVerification(msg);
  const code = x.otp ? x.otp.replace(/\s+/g, '') : null;
  const link = x.primaryLink;
  if (!code && !link) return { code: null, link: null, service: null, expiresInMinutes: null };
  const service = x.service
    ? getPreset(x.service).displayName
    : cleanSender(
        v.fromName.replace(/\s*(?:support|team|security|sicherheit|accounts?|konto|compte|cuenta|no-?reply|notifications?|guard)\s*$/i, ''),
      );
  return { code, link, service, expiresInMinutes: expiresIn([v.subject, ...v.lines]) };
}
