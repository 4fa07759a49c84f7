// URL helpers for link scoring: registrable domain, IP-literal hosts, token detection and the
// click-tracking unwrap. Nothing is fetched.

const TRACKING_KEYS =
  /^(?:utm_\w+|trk|trkid|trkemail|ref_?|src|source|medium|campaign|lang|locale|hl|mkt|cl|ch|fr|lipi|mc_cid|mc_eid|_hsenc|_hsmi|gclid|fbclid|mkt_tok)$/i;

const TOKEN_KEYS = /^(?:token|code|otp|key|t|k|sig|signature|hash|auth|verification(?:_?code)?|confirm(?:ation)?(?:_?code)?|nonce)$/i;

export function hostOf(u: URL): string {
  return u.hostname.toLowerCase().replace(/\.$/, '');
}

/** Registrable domain (eTLD+1, approximated with a short list of two-level public suffixes). */
export function registrableDomain(host: string): string {
  const h = host.toLowerCase().replace(/\.$/, '');
  const parts = h.split('.');
  if (parts.length <= 2) return h;
  const sld = parts[parts.length - 2]!;
  const tld = parts[parts.length - 1]!;
  const twoLevel = tld.length === 2 && /^(?:co|com|net|org|gov|ac|edu|ne|or|go|gob|gouv|mil|nic|ltd|plc|sch|info|biz)$/.test(sld);
  return parts.slice(twoLevel ? -3 : -2).join('.');
}

export function isIpHost(host: string): boolean {
  return /^\d{1,3}(?:\.\d{1,3}){3}$/.test(host) || host.startsWith('[') || /^0x[0-9a-f]+$/i.test(host) || /^\d+$/.test(host);
}

export function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** The target of a click-tracking wrapper, when the wrapper carries it in url=/u=/q= (or an awstrack path). */
export function unwrapTracking(href: string): string | null {
  let u: URL;
  try {
    u = new URL(href);
  } catch {
    return null;
  }
  for (const key of ['url', 'u', 'q', 'target', 'redirect_url', 'dest']) {
    const v = u.searchParams.get(key);
    if (v && /^https?:\/\//i.test(v)) {
      try {
        const t = new URL(v);
        if (hostOf(t) !== hostOf(u)) return v;
      } catch {
        /* not a URL */
      }
    }
  }
  // Amazon SES: https://r.us-east-1.awstrack.me/L0/https:%2F%2Fexample.com%2Fverify/1/…
  const m = /\/L\d\/(https?:%2F%2F[^/]+)/i.exec(u.pathname);
  if (m?.[1]) {
    const v = safeDecode(m[1]);
    if (/^https?:\/\/[^/\s]+/i.test(v)) return v;
  }
  return null;
}

/** A piece of a URL (path segment or query value) that looks like a random token. */
function looksLikeToken(piece: string): boolean {
  if (piece.length < 10) return false;
  if (/[0-9a-f]{16,}/i.test(piece)) return true;
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i.test(piece)) return true;
  for (const part of piece.split(/[-_.~:]/)) {
    if (part.length < 10) continue;
    const digits = (part.match(/\d/g) ?? []).length;
    const letters = (part.match(/[A-Za-z]/g) ?? []).length;
    const mixedCase = /[a-z]/.test(part) && /[A-Z]/.test(part);
    if (digits >= 2 && letters >= 3) return true;
    if (mixedCase && part.length >= 16 && digits + letters >= part.length - 2) return true;
  }
  // random base64url flips between upper and lower case far more often than words in CamelCase do
  if (piece.length >= 20 && /^[A-Za-z0-9_-]+$/.test(piece)) {
    let switches = 0;
    for (let i = 1; i < piece.length; i++) {
      const a = piece[i - 1]!;
      const b = piece[i]!;
      if (/[a-z]/.test(a) && /[A-Z]/.test(b)) switches++;
      else if (/[A-Z]/.test(a) && /[a-z]/.test(b)) switches++;
    }
    if (switches >= piece.length / 3) return true;
  }
  if (piece.length >= 24 && /^[A-Za-z0-9_\-.~%=+]+$/.test(piece)) {
    const digits = (piece.match(/\d/g) ?? []).length;
    if (digits >= 3 && /[A-Za-z]/.test(piece)) return true;
  }
  return false;
}

export function hasToken(u: URL): boolean {
  for (const seg of u.pathname.split('/')) if (looksLikeToken(safeDecode(seg))) return true;
  for (const [k, v] of u.searchParams) {
    if (TRACKING_KEYS.test(k)) continue;
    if (looksLikeToken(v)) return true;
    // a short secret under a name that says so ("?code=482913", "&sig=ab12cd")
    if (TOKEN_KEYS.test(k) && /^[A-Za-z0-9_\-.~%]{6,}$/.test(v) && /\d/.test(v)) return true;
    // a long random value under such a name, even with few digits (base64url tokens)
    if (TOKEN_KEYS.test(k) && /^[A-Za-z0-9_\-.~%=]{16,}$/.test(v)) return true;
  }
  if (u.hash.length > 10 && looksLikeToken(u.hash.slice(1))) return true;
  return false;
}
