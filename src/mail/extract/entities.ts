// HTML character references: numeric ones and the named ones that occur in real mail (all of Latin-1,
// typographic punctuation, arrows and currency). An unknown name is left as written.

const LATIN1 =
  'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute ' +
  'micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring AElig ' +
  'Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash ' +
  'Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ' +
  'ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc ' +
  'uuml yacute thorn yuml';

const OTHER: Record<string, number> = {
  amp: 38,
  lt: 60,
  gt: 62,
  quot: 34,
  apos: 39,
  OElig: 338,
  oelig: 339,
  Scaron: 352,
  scaron: 353,
  Yuml: 376,
  fnof: 402,
  circ: 710,
  tilde: 732,
  ensp: 8194,
  emsp: 8195,
  thinsp: 8201,
  zwnj: 8204,
  zwj: 8205,
  lrm: 8206,
  rlm: 8207,
  ndash: 8211,
  mdash: 8212,
  lsquo: 8216,
  rsquo: 8217,
  sbquo: 8218,
  ldquo: 8220,
  rdquo: 8221,
  bdquo: 8222,
  dagger: 8224,
  Dagger: 8225,
  bull: 8226,
  hellip: 8230,
  permil: 8240,
  prime: 8242,
  Prime: 8243,
  lsaquo: 8249,
  rsaquo: 8250,
  oline: 8254,
  frasl: 8260,
  euro: 8364,
  trade: 8482,
  larr: 8592,
  uarr: 8593,
  rarr: 8594,
  darr: 8595,
  harr: 8596,
  lArr: 8656,
  rArr: 8658,
  minus: 8722,
  lowast: 8727,
  le: 8804,
  ge: 8805,
  ne: 8800,
  infin: 8734,
  check: 10003,
  star: 9734,
  starf: 9733,
  hearts: 9829,
  loz: 9674,
  nbhy: 8209,
  hyphen: 8208,
  dash: 8208,
  colon: 58,
  comma: 44,
  period: 46,
  excl: 33,
  quest: 63,
  num: 35,
  dollar: 36,
  percnt: 37,
  lpar: 40,
  rpar: 41,
  ast: 42,
  plus: 43,
  sol: 47,
  semi: 59,
  equals: 61,
  commat: 64,
  lsqb: 91,
  rsqb: 93,
  bsol: 92,
  lowbar: 95,
  grave: 96,
  lcub: 123,
  rcub: 125,
  verbar: 124,
  vert: 124,
  Tab: 9,
  NewLine: 10,
  NonBreakingSpace: 160,
  ZeroWidthSpace: 8203,
  rupee: 8377,
  inr: 8377,
  alpha: 945,
  beta: 946,
  mu: 956,
  pi: 960,
  middotdot: 183,
  centerdot: 183,
  laquo: 171,
  raquo: 187,
  langle: 9001,
  rangle: 9002,
  lang: 10216,
  rang: 10217,
  sdot: 8901,
  diams: 9830,
  clubs: 9827,
  spades: 9824,
  cross: 10007,
  zwsp: 8203,
};

const NAMED = new Map<string, number>();
for (const [i, n] of LATIN1.split(' ').entries()) NAMED.set(n, 160 + i);
for (const [k, v] of Object.entries(OTHER)) NAMED.set(k, v);

// Windows-1252 code points that numeric references in the 0x80–0x9F range mean in practice.
const CP1252: Record<number, number> = {
  0x80: 0x20ac,
  0x82: 0x201a,
  0x83: 0x0192,
  0x84: 0x201e,
  0x85: 0x2026,
  0x86: 0x2020,
  0x87: 0x2021,
  0x88: 0x02c6,
  0x89: 0x2030,
  0x8a: 0x0160,
  0x8b: 0x2039,
  0x8c: 0x0152,
  0x8e: 0x017d,
  0x91: 0x2018,
  0x92: 0x2019,
  0x93: 0x201c,
  0x94: 0x201d,
  0x95: 0x2022,
  0x96: 0x2013,
  0x97: 0x2014,
  0x98: 0x02dc,
  0x99: 0x2122,
  0x9a: 0x0161,
  0x9b: 0x203a,
  0x9c: 0x0153,
  0x9e: 0x017e,
  0x9f: 0x0178,
};

function fromCode(n: number): string {
  if (!Number.isFinite(n) || n <= 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) return '\ufffd';
  const m = CP1252[n];
  return String.fromCodePoint(m ?? n);
}

const ENTITY_RE = /&(?:#[xX]([0-9a-fA-F]{1,6})|#([0-9]{1,7})|([A-Za-z][A-Za-z0-9]{1,31}))(;?)/g;
const LEGACY = new Set(['amp', 'lt', 'gt', 'quot', 'nbsp', 'copy', 'reg', 'AMP', 'LT', 'GT', 'QUOT']);

/** Decodes HTML character references in text or an attribute value. */
export function decodeEntities(s: string): string {
  if (s.indexOf('&') < 0) return s;
  return s.replace(
    ENTITY_RE,
    (m: string, hex: string | undefined, dec: string | undefined, name: string | undefined, semi: string, off: number) => {
      if (hex !== undefined) return fromCode(parseInt(hex, 16));
      if (dec !== undefined) return fromCode(parseInt(dec, 10));
      if (name !== undefined) {
        if (semi !== ';') {
          // without ';' only the legacy names decode, and not before '=' (a URL query such as &copy=1)
          const next = s.charAt(off + m.length);
          if (!LEGACY.has(name) || next === '=') return m;
        }
        const cp = NAMED.get(name) ?? NAMED.get(name.toLowerCase());
        if (cp !== undefined) return String.fromCodePoint(cp);
      }
      return m;
    },
  );
}
