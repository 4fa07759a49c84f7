// Link candidates (HTML hrefs and text/plain URLs), their scores and exclusions (README rules 9–11), and
// the click-tracking unwrap. A link is the primary link only when it carries a token and something says
// it verifies: its anchor/label ("Verify email", "Konto aktivieren", "Yes, it's me – approve"), its path
// (/verify, /confirm, /magic, /password-reset) or the sentence that introduces it. Nothing is fetched.

import type { PresetId } from '../presets.ts';
import { serviceFromAddress } from '../presets.ts';
import type { Line, LinkRef } from './doc.ts';
import { LIMITS } from './doc.ts';
import { ACCEPT_ANCHOR, DECLINE_ANCHOR, NOT_YOU_CTX } from './keywords.ts';
import { hasToken, hostOf, isIpHost, registrableDomain, unwrapTracking } from './urls.ts';

export { hasToken, registrableDomain, unwrapTracking } from './urls.ts';

export interface LinkContext {
  /** Registrable domain of the From address, e.g. "slack.com". */
  senderDomain: string | null;
  /** The preset of the From address (so facebookmail.com and facebook.com count as one site). */
  senderService?: PresetId | null;
  /** The message asks for a password reset / account recovery (so "Change password" can be the action). */
  resetIntent: boolean;
  /** The message is about a sign-in link ("sign-in link", "magic link", "log in with one click"). */
  loginLinkIntent: boolean;
  /** Someone invited the recipient to a team/workspace (so "Accept invitation", "Join the team" is the action). */
  inviteIntent?: boolean;
  /** Welcome / "you're verified" mail: sign-in buttons in it are not verification links. */
  alreadyDone: boolean;
  /** URLs from List-Unsubscribe. */
  unsubscribe: Set<string>;
  /** Hosts that may be followed although they are IP literals or single labels (inboxd's own base URL). */
  trustedHosts?: readonly string[];
}

export interface ScoredLink {
  href: string;
  unwrapped: string | null;
  score: number;
  source: 'text' | 'html';
  order: number;
  reasons: string[];
}

export const LINK_THRESHOLD = 0.5 - 1e-9;

const STRONG_ANCHOR =
  /verif|confirm|activat|validat|magic|approve|authori[sz]e|it'?s me|it was me|yes,? (?:it|that) (?:was|is)|subscribe me|complete (?:your )?(?:registration|sign ?up|signup)|bestätig|verifizier|aktivier|freischalt|vérifi|confirmer|activer|valider|verifica|confirma|activa|ativa|conferma|attiva|bevestig|activeer|bekräfta|aktivera|bekræft|aktiver|vahvista|aktivoi|potwierd|aktywuj|ověř|potvrď|aktivuj|doğrula|onayla|подтверд|активир|確認|認証|有効化|验证|驗證|确认|激活|啟用|인증|확인|활성화|تأكيد|تفعيل|אמת|אשר/;
const LOGIN_ANCHOR =
  /sign[ -]?in|log[ -]?in|login|signin|log me in|sign me in|continue to|anmelden|einloggen|se connecter|connexion|iniciar sesión|inicia sesión|entrar|accedi|accedere|inloggen|aanmelden|logga in|log ind|kirjaudu|zaloguj|přihlásit|giriş yap|войти|ログイン|登录|登入|로그인/;
const RESET_ANCHOR =
  /reset|change (?:your |my )?password|new password|choose (?:a )?(?:new )?password|set (?:up )?(?:a |your )?(?:new )?password|create (?:a )?(?:new )?password|recover|passwort|mot de passe|contraseña|senha|wachtwoord|password|パスワード|密码|비밀번호|пароль/;
const NEG_ANCHOR =
  /unsubscribe|opt[- ]?out|preferences|notification settings|email settings|manage (?:your )?(?:email|notification|subscription|preference|alert)|settings|view (?:it |this (?:email|message) )?(?:in|on) (?:your |a )?(?:browser|web)|view online|web version|online version|privacy|terms|legal|polic(?:y|ies)|cookie|\bhelp\b|support|contact|faq|\bdocs?\b|documentation|learn more|read more|learn why|\bblog\b|community|download|get the app|app store|google play|not you|wasn'?t me|not me|this wasn'?t|\bdeny\b|\bblock|report|let us know|\bremove\b|secure (?:your |my )?account|review (?:your )?(?:recent )?(?:activity|security|devices|sessions|settings)|check (?:your )?activity|\btrack|\border\b|receipt|invoice|itinerary|message (?:the )?host|view (?:trip|order|transaction|deployment|folder|itinerary|details|build|logs|file|document|pull request|issue)|\bjoin\b|\bwatch\b|\bshop\b|\bbuy\b|open (?:in )?(?:slack|notion|the app|app|teams|zoom|file|folder|document|design|project|board|workspace|page|dashboard)|see all|feedback|careers|abmelden|abbestellen|désinscri|désabonner|darse de baja|cancelar (?:la )?suscripción|disiscriviti|afmelden|uitschrijven|datenschutz|confidentialit|privacidad|privacidade|impressum|hilfe|\baide\b|ayuda|ajuda|aiuto|cancel|disavow|\bno,|wasn'?t|didn'?t|\baccept\b|invitation|\binvite\b|attendance|appointment|\brsvp\b|reservation|booking|payment|purchase|delivery|shipment|transfer|donation/;
/** Path/query words of a verification URL (strong) and of a sign-in URL (weak). */
const POS_URL =
  /verif|confirm|activat|validat|magic|approve|reset|password|recover|opt-?in|double-?opt|subscribe\/confirm|one-?time|emailverify|otp/;
const INVITE_URL = /invit|accept|join|einlad|convit|uitnodig|redeem/;
const WEAK_URL = /sign[-_]?in|log[-_]?in|\/auth\b|\/auth\/|[?&](?:token|code|code_token|key|t|k)=/;
const NEG_URL =
  /unsubscribe|optout|opt-out|opt_out|preferences|\/prefs?\b|settings|notifications?\b|privacy|\/legal|\/terms|\/tos\b|\/help\b|\/support\b|\/faq|\/docs?\/|\/blog\b|\bdeny\b|\/block|cancel|disavow|\/report|not-?me\b|notme|\/remove|\/decline|\/reject|ablehnen|refuser|rechazar|\/track\/open|\/wf\/open|open\.php|open\.aspx|beacon|pixel|\/o\.php|logout|sign-?out|\/download|apps\.apple\.com|play\.google\.com|\/EmailUnsubscribe/i;
const NEG_HOST =
  /^(?:help|support|docs|community|status|blog|feedback|careers|investors?|developers?|learn|academy|store|shop|press|legal|privacy)\./;
const SOCIAL_HOST =
  /(?:^|\.)(?:facebook\.com|twitter\.com|x\.com|instagram\.com|linkedin\.com|youtube\.com|tiktok\.com|pinterest\.com|github\.com|medium\.com|threads\.net|reddit\.com|discord\.gg|t\.me|wa\.me)$/;
const SOCIAL_ALT =
  /^(?:facebook|twitter|x|instagram|linkedin|youtube|tiktok|pinterest|github|medium|threads|reddit|discord|telegram|whatsapp|mastodon|bluesky|snapchat|vimeo|social)$/i;
/** Anchors that say nothing by themselves ("click here", the URL itself): the sentence before them counts. */
const GENERIC_ANCHOR =
  /^(?:click here|click|here|tap here|press here|this link|the link|link|button|follow this link|open link|hier|hier klicken|klicken sie hier|ici|cliquez ici|aquí|haga clic aquí|haz clic aquí|aqui|clique aqui|qui|clicca qui|klik hier|tutaj|kliknij tutaj|здесь|ここ|こちら|这里|點擊這裡|여기)[.!:]?$/;
const POS_CONTEXT =
  /verif|confirm|activat|magic link|sign[- ]?in link|log[- ]?in link|click (?:the|this) (?:link|button)|(?:link|button) below|open (?:this|the) link|tap the button|copy (?:and paste )?this (?:link|address|url)|to (?:finish|complete)|bestätig|aktivier|vérifi|confirmer|verific|confirma|bevestig|подтверд|確認|验证|인증/;

/** URLs in text/plain lines (or in HTML text outside <a>), as written: without <…>, (…), […] and trailing
 *  punctuation. */
export function textLinks(lines: Line[], fromHtml = false): LinkRef[] {
  const out: LinkRef[] = [];
  const re = /\bhttps?:\/\/[^\s<>"'`\u0001]+/gi;
  for (let i = 0; i < lines.length && out.length < LIMITS.links; i++) {
    const t = fromHtml ? (lines[i]!.outsideLinks ?? '') : lines[i]!.text;
    if (t.indexOf('://') < 0) continue;
    re.lastIndex = 0;
    for (let m = re.exec(t); m && out.length < LIMITS.links; m = re.exec(t)) {
      let url = m[0];
      for (;;) {
        const last = url.charAt(url.length - 1);
        if ('.,;:!?\'"*…'.includes(last)) url = url.slice(0, -1);
        else if (last === ')' && url.indexOf('(') < 0) url = url.slice(0, -1);
        else if (last === ']' && url.indexOf('[') < 0) url = url.slice(0, -1);
        else if (last === '}' && url.indexOf('{') < 0) url = url.slice(0, -1);
        else if (last === '>') url = url.slice(0, -1);
        else break;
      }
      if (url.length < 10 || url.includes('…')) continue;
      out.push({
        href: url,
        text: '',
        imageOnly: false,
        pixel: false,
        line: i,
        before: t.slice(0, m.index).replace(/[\s(<[:：\-–—]+$/, ''),
        after: t.slice(m.index + url.length),
        source: 'text',
        hidden: lines[i]!.hidden,
      });
    }
  }
  return out;
}

/** The label of a text/plain URL: the text before it on its line, else the nearest line above. */
function nearLabel(link: LinkRef, lines: Line[]): string {
  if (link.before.trim() !== '') return link.before;
  for (let k = link.line - 1; k >= 0 && k >= link.line - 3; k--) {
    const t = lines[k]?.text ?? '';
    if (t === '') continue;
    if (/^<?https?:\/\//i.test(t)) return '';
    return t;
  }
  return '';
}

/** Text that introduces a link: its own line before it, then up to two earlier lines. */
function contextBefore(link: LinkRef, lines: Line[]): string {
  let ctx = link.before;
  let added = 0;
  for (let k = link.line - 1; k >= 0 && added < 2 && ctx.length < 240; k--) {
    const t = lines[k]?.text ?? '';
    if (t === '') {
      if (added > 0) break;
      continue;
    }
    if (/^https?:\/\//i.test(t)) break;
    ctx = t + ' ' + ctx;
    added++;
  }
  return ctx.slice(-240);
}

export function scoreLinks(links: LinkRef[], lines: Line[], ctx: LinkContext, orderBase = 0): ScoredLink[] {
  const out: ScoredLink[] = [];
  links.forEach((link, idx) => {
    const s = scoreLink(link, lines, ctx);
    if (s) out.push({ ...s, order: orderBase + idx });
  });
  return out;
}

function scoreLink(link: LinkRef, lines: Line[], ctx: LinkContext): Omit<ScoredLink, 'order'> | null {
  const href = link.href;
  if (!/^https?:\/\//i.test(href)) return null; // mailto:, tel:, javascript:, cid:, relative
  if (link.pixel || ctx.unsubscribe.has(href)) return null;
  let u: URL;
  try {
    u = new URL(href);
  } catch {
    return null;
  }
  // userinfo tricks ("https://good.com@evil.com/…") and IP-literal hosts are never followed
  const authority = href.replace(/^https?:\/\//i, '').split(/[/?#]/)[0] ?? '';
  if (authority.includes('@') || u.username || u.password) return null;
  const host = hostOf(u);
  if ((isIpHost(host) || !host.includes('.')) && !ctx.trustedHosts?.includes(host)) return null;
  const line = lines[link.line];
  if (line?.quoted) return null;

  const reasons: string[] = [];
  const anchor = link.text.toLowerCase();
  const before = contextBefore(link, lines).toLowerCase();
  // for text/plain the label is the text before the URL on its line, else the line above
  let label = link.source === 'text' ? nearLabel(link, lines).toLowerCase() : anchor;
  if (link.source === 'html' && (GENERIC_ANCHOR.test(anchor.trim()) || /^https?:\/\//.test(anchor.trim()))) {
    // "To verify your address, <a>click here</a>": the sentence before the anchor is its label
    let sentence = (
      link.before
        .toLowerCase()
        .split(/[.!?]\s/)
        .pop() ?? ''
    ).slice(-120);
    if (link.before.trim() === '') {
      // the anchor starts its line: "Use the link below to reset your password:" on the line above names it, but
      // only for a reset or an invitation (other sentences above a bare URL say too little to go by)
      const above = (before.split(/[.!?]\s/).pop() ?? '').slice(-120);
      if ((ctx.resetIntent && RESET_ANCHOR.test(above)) || (ctx.inviteIntent && ACCEPT_ANCHOR.test(above))) sentence = above;
    }
    label = sentence + ' ' + anchor;
  }
  const unwrapped = unwrapTracking(href);
  let target: URL = u;
  if (unwrapped) {
    try {
      target = new URL(unwrapped);
    } catch {
      /* keep wrapper */
    }
  }
  const urlText = (target.pathname + target.search).toLowerCase();
  const wrapperText = (u.pathname + u.search).toLowerCase();

  let score = 0;
  const lab80 = label.slice(-80);
  const decline = DECLINE_ANCHOR.test(lab80);
  const accept = !!ctx.inviteIntent && !decline && ACCEPT_ANCHOR.test(lab80);
  // ---- exclusions
  if (label && (NEG_ANCHOR.test(lab80) || decline) && !/\byes\b/.test(label) && !accept) {
    if (link.source === 'html' || !STRONG_ANCHOR.test(lab80)) return null;
  }
  if (link.imageOnly && (SOCIAL_ALT.test(anchor.trim()) || anchor === '')) return null;
  if (SOCIAL_HOST.test(host) && !sameSite(host, ctx.senderDomain) && !samePreset(host, ctx)) {
    // a social profile / icon link (not the social network's own account mail with a token)
    if (link.imageOnly || SOCIAL_ALT.test(anchor.trim()) || (!hasToken(u) && u.pathname.split('/').filter(Boolean).length <= 2))
      return null;
  }
  if (NEG_URL.test(urlText) || NEG_URL.test(wrapperText)) score -= 0.6;
  // help.example.com, shop.example.com: a sub-domain for something else (shop.kr itself is a site's own domain)
  const negHost = (h: string): boolean => NEG_HOST.test(h) && h !== registrableDomain(h);
  if (negHost(host) || negHost(hostOf(target))) score -= 0.5;
  const notYouText = link.source === 'text' ? before.slice(-160) : (before + ' ' + anchor).slice(-200);
  if (NOT_YOU_CTX.test(notYouText)) {
    score -= 0.7;
    reasons.push('not-you');
  }

  // ---- positive evidence
  const lab = label.slice(-100);
  const strong = STRONG_ANCHOR.test(lab);
  const login = !strong && LOGIN_ANCHOR.test(lab);
  const reset = !strong && RESET_ANCHOR.test(lab);
  if (strong) {
    score += 0.5;
    reasons.push('anchor');
  } else if (accept) {
    score += 0.5;
    reasons.push('invite');
  } else if (reset) {
    if (ctx.resetIntent) {
      score += 0.45;
      reasons.push('reset');
    } else score -= 0.5;
  }
  const posUrl = POS_URL.test(urlText) || (unwrapped === null && POS_URL.test(wrapperText));
  const weakUrl = !posUrl && (WEAK_URL.test(urlText) || (unwrapped === null && WEAK_URL.test(wrapperText)));
  if (login && !ctx.alreadyDone) {
    // a "Sign in" button is a magic link only in a sign-in mail or when its URL says so
    score += posUrl || weakUrl || ctx.loginLinkIntent ? 0.3 + (ctx.loginLinkIntent ? 0.2 : 0) : 0.1;
    reasons.push('login');
  }
  const doneLogin = ctx.alreadyDone && /log[-_]?in|sign[-_]?in/.test(urlText) && !/verif|confirm|activat/.test(urlText);
  if (posUrl && !doneLogin) {
    score += 0.25;
    reasons.push('url');
  } else if (weakUrl && !doneLogin) {
    score += 0.15;
    reasons.push('weak-url');
  }
  if (!strong && POS_CONTEXT.test(before.slice(-200))) {
    score += 0.15;
    reasons.push('context');
  }
  if (ctx.loginLinkIntent && !strong && !login && (posUrl || weakUrl)) score += 0.1;
  const token = hasToken(u) || (target !== u && hasToken(target));
  // an invitation page ("github.com/orgs/acme/invitation") may identify the invitee by the signed-in account alone
  const inviteUrl = accept && INVITE_URL.test(urlText);
  if (inviteUrl) score += 0.1;
  if (token) {
    score += 0.15;
    reasons.push('token');
  } else score -= inviteUrl ? 0.1 : 0.6;
  if (!strong && !accept && !login && !reset && !posUrl && !weakUrl) score -= 0.3;
  if (sameSite(host, ctx.senderDomain) || sameSite(hostOf(target), ctx.senderDomain) || samePreset(hostOf(target), ctx)) score += 0.05;
  score += u.protocol === 'https:' ? 0.05 : -0.05;
  if (link.hidden) score -= 0.3;
  if (link.imageOnly) score -= 0.2;
  return { href, unwrapped, score, source: link.source, reasons };
}

function samePreset(host: string, ctx: LinkContext): boolean {
  return !!ctx.senderService && serviceFromAddress(host) === ctx.senderService;
}

function sameSite(host: string, domain: string | null): boolean {
  if (!domain) return false;
  return host === domain || host.endsWith('.' + domain);
}
