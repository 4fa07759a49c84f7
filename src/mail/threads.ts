// Pure threading logic (no I/O): the base subject of a subject (RFC 5256's idea, with the reply and forward prefixes
// of many languages), the Message-IDs a message links to, and its participants. src/threads/ stores and groups with
// these; migration 012 threads old mail with them.

/**
 * Reply and forward prefixes as mail clients write them, lower-cased: English, German (AW, WG), Nordic (SV, VS, VB,
 * VL), Dutch (Antw, Doorst), French (TR, Réf), Spanish (RV), Italian (R, I, Rif), Portuguese (RES, ENC), Polish
 * (Odp, PD), Czech, Croatian/Slovenian (Odg, Prosl, Posl), Hungarian (Vá), Turkish (YNT, İLT), Greek, Baltic,
 * Russian, Chinese, Japanese, Korean, Arabic and Hebrew.
 */
const PREFIX_WORDS = [
  're',
  'fwd',
  'fw',
  'aw',
  'wg',
  'sv',
  'vs',
  'vb',
  'vl',
  'antw',
  'antwort',
  'doorst',
  'tr',
  'rv',
  'rif',
  'r',
  'i',
  'enc',
  'res',
  'resp',
  'odp',
  'pd',
  'přep',
  'př',
  'odg',
  'prosl',
  'posl',
  'vá',
  'továbbítás',
  'ynt',
  'ilt',
  'İlt',
  'απ',
  'σχετ',
  'πρθ',
  'atb',
  'pārs',
  'ats',
  'pers',
  'vast',
  'edasta',
  'ответ',
  'отв',
  'пересл',
  '答复',
  '回复',
  '转发',
  '回覆',
  '轉寄',
  '轉發',
  '返信',
  '転送',
  '회신',
  '전달',
  '답장',
  'رد',
  'תשובה',
  'הועבר',
];

// A prefix word, an optional counter (Re[2]:, Re(2):, Re^2:), optional spaces (French "RE :"), then a colon (also the
// full-width one). "Réf." ends with a dot instead. A run of them ("Re: Fwd: Re: ") is matched at once.
const ONE_PREFIX = `(?:(?:${PREFIX_WORDS.join('|')})\\s*(?:\\[\\d{1,4}\\]|\\(\\d{1,4}\\)|\\^\\d{1,4})?\\s*[:：]|réf\\s*(?:\\.\\s*[:：]?|[:：]))\\s*`;
const PREFIX = new RegExp(`^${ONE_PREFIX}`, 'iu');
const PREFIX_RUN = new RegExp(`^(?:${ONE_PREFIX})+`, 'iu');
const WRAPPED_FORWARD = /^\[(?:fwd?|fw)\s*:\s*(.*)\]$/iu;
const TRAILING_FORWARD = /\s*\((?:fwd?|fw)\)$/iu;
const BLOB = /^\[[^\]]{0,100}\]\s*/u;
/** What is left after the leading prefixes is looked at up to this length (the key is shorter still). */
const MAX_SUBJECT = 2000;

export interface SubjectParts {
  /** The subject without reply/forward prefixes, whitespace collapsed (a leading list tag such as "[dev]" stays). */
  base: string;
  /** The base lower-cased (at most 300 characters): what subject fallback compares. */
  key: string;
  /** It had a reply or forward prefix: only then may it join a thread by subject (CONTRACT §9). */
  reply: boolean;
}

export function parseSubject(subject: string): SubjectParts {
  let s = subject.normalize('NFC').replace(/\s+/gu, ' ').trim();
  let reply = false;
  const tags: string[] = [];
  // Every round removes something, and each pattern is anchored and bounded, so a hostile subject costs linear time.
  for (;;) {
    const p = PREFIX_RUN.exec(s);
    if (p) {
      s = s.slice(p[0].length);
      reply = true;
    }
    if (s.length > MAX_SUBJECT) s = s.slice(0, MAX_SUBJECT);
    const w = WRAPPED_FORWARD.exec(s);
    if (w) {
      s = w[1]!.trim();
      reply = true;
      continue;
    }
    const t = TRAILING_FORWARD.exec(s.slice(-8));
    if (t) {
      s = s.slice(0, s.length - t[0].length).trimEnd();
      reply = true;
      continue;
    }
    // A list tag before a prefix ("[dev] Re: x") is kept, the prefix after it removed: the base is "[dev] x", as
    // for the list's first message. The same tag repeated ("[dev] Re: [dev] x") is kept once.
    const b = BLOB.exec(s);
    if (b) {
      const rest = s.slice(b[0].length);
      const tag = b[0].trim();
      if (PREFIX.test(rest) || WRAPPED_FORWARD.test(rest)) {
        if (!tags.includes(tag)) tags.push(tag);
        s = rest;
        continue;
      }
      if (tags.includes(tag)) {
        s = rest;
        continue;
      }
    }
    break;
  }
  const base = [...tags, s].join(' ').trim();
  return { base, key: base.toLowerCase().slice(0, 300), reply };
}

const MAX_ID_LENGTH = 998;
/** How many of a message's References are looked up: In-Reply-To and the nearest ancestors (JWZ needs no more). */
export const MAX_PARENT_IDS = 100;

/** The ids in a Message-ID / In-Reply-To value: the <…> tokens, brackets removed; a bare token if there is none. */
export function messageIdsIn(value: string | null | undefined): string[] {
  if (!value) return [];
  const out: string[] = [];
  for (const m of value.matchAll(/<([^<>\s]{1,998})>/g)) out.push(m[1]!);
  if (out.length === 0) {
    const bare = value.trim();
    if (bare && bare.length <= MAX_ID_LENGTH && !/\s/.test(bare)) out.push(bare);
  }
  return out;
}

export interface MessageLinks {
  /** The message's own Message-ID (normalised), if it has one. */
  own: string | null;
  /** The ids it refers to, nearest first: In-Reply-To, then References from the last; without `own`, no repeats. */
  parents: string[];
}

export function linksOf(messageId: string | null, inReplyTo: string | null, references: readonly string[]): MessageLinks {
  const own = messageIdsIn(messageId)[0] ?? null;
  const seen = new Set<string>(own ? [own] : []);
  const parents: string[] = [];
  const add = (id: string) => {
    if (parents.length >= MAX_PARENT_IDS || seen.has(id)) return;
    seen.add(id);
    parents.push(id);
  };
  for (const id of messageIdsIn(inReplyTo)) add(id);
  for (let i = references.length - 1; i >= 0 && parents.length < MAX_PARENT_IDS; i--) {
    const ids = messageIdsIn(references[i]);
    for (let j = ids.length - 1; j >= 0; j--) add(ids[j]!);
  }
  return { own, parents };
}

export const MAX_PARTICIPANTS = 50;

/**
 * Lower-cased addresses of the sender and the To and Cc recipients, in that order, at most `max`. Reads the stored
 * JSON of the address lists by pattern, not by parsing it: a message to thousands costs no more than a few matches.
 */
export function participantsOf(from: string | null, toJson: string, ccJson: string, max = MAX_PARTICIPANTS): string[] {
  const out = new Set<string>();
  if (from) out.add(from.toLowerCase());
  for (const json of [toJson, ccJson]) {
    for (const m of json.matchAll(/"address":"((?:[^"\\]|\\.)*)"/g)) {
      if (out.size >= max) return [...out];
      let a: string;
      try {
        a = (JSON.parse(`"${m[1]!}"`) as string).toLowerCase();
      } catch {
        continue;
      }
      if (a) out.add(a);
    }
  }
  return [...out].slice(0, max);
}

/** A stored participants list; anything unreadable counts as empty (threading must never refuse mail over it). */
export function participantList(json: string): string[] {
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** `into` with the addresses of `more` it lacks appended, at most `max`; the same array when nothing was added. */
export function mergeParticipants(into: string[], more: readonly string[], max = MAX_PARTICIPANTS): string[] {
  let out = into;
  for (const a of more) {
    if (out.length >= max) break;
    if (!out.includes(a)) out = out === into ? [...into, a] : (out.push(a), out);
  }
  return out;
}

/** A short preview of a body: quoted lines dropped, whitespace collapsed, at most `max` characters. */
export function snippetOf(text: string | null, max = 160): string {
  if (!text) return '';
  const lines = text.split(/\r?\n/).filter((l) => !/^\s*>/.test(l));
  const s = lines.join(' ').replace(/\s+/gu, ' ').trim();
  return s.length > max ? `${s.slice(0, max - 1).trimEnd()}…` : s;
}

/** What threading needs from one message, computed once per message (not per recipient, not in the transaction). */
export interface ThreadFields {
  own: string | null;
  parents: string[];
  subject: string;
  key: string;
  reply: boolean;
  participants: string[];
}

/** From the stored (serialised) content columns of a message. */
export function threadFieldsOf(c: {
  message_id_header: string | null;
  in_reply_to: string | null;
  references_json: string;
  subject: string;
  from_address: string | null;
  to_json: string;
  cc_json: string;
}): ThreadFields {
  let refs: string[] = [];
  try {
    const v: unknown = JSON.parse(c.references_json);
    if (Array.isArray(v)) refs = v.filter((x): x is string => typeof x === 'string');
  } catch {
    // a message stored without parsed references threads by its other headers
  }
  const { own, parents } = linksOf(c.message_id_header, c.in_reply_to, refs);
  const s = parseSubject(c.subject);
  return {
    own,
    parents,
    subject: c.subject,
    key: s.key,
    reply: s.reply,
    participants: participantsOf(c.from_address, c.to_json, c.cc_json),
  };
}
