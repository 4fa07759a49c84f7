// The 25 service presets (CONTRACT §7): sender domains, what each service sends, the code shape, and the
// steps an agent follows to sign up or sign in with an inboxd address.

export const PRESET_IDS = [
  'github',
  'google',
  'microsoft',
  'apple',
  'amazon',
  'slack',
  'discord',
  'notion',
  'stripe',
  'shopify',
  'atlassian',
  'dropbox',
  'linkedin',
  'x',
  'facebook',
  'instagram',
  'airbnb',
  'uber',
  'netflix',
  'spotify',
  'zoom',
  'openai',
  'figma',
  'vercel',
  'paypal',
] as const;

export type PresetId = (typeof PRESET_IDS)[number];

export interface CodeShape {
  /** Usual lengths of the typed code (letters and digits, without dashes or prefix). */
  lengths: number[];
  alphabet: 'digits' | 'alphanumeric';
  /** A label printed before the code that is not typed, e.g. "G-". */
  prefix?: string;
}

export interface Preset {
  id: PresetId;
  displayName: string;
  /** The company's mail domains; sub-domains match too. */
  senderDomains: string[];
  sends: 'code' | 'link' | 'both';
  code?: CodeShape;
  recipe: { summary: string; steps: string[] };
}

interface Def {
  displayName: string;
  senderDomains: string[];
  sends: 'code' | 'link' | 'both';
  code?: CodeShape;
  /** Where the agent signs up or signs in. */
  start: string;
  /** What the mail contains, in a few words. */
  mail: string;
  /** Service-specific advice, if any. */
  tip?: string;
}

const DEFS: Record<PresetId, Def> = {
  github: {
    displayName: 'GitHub',
    senderDomains: ['github.com'],
    sends: 'both',
    code: { lengths: [6, 8], alphabet: 'digits' },
    start: 'https://github.com/signup',
    mail: 'an 8-digit launch code at sign-up, a 6-digit device verification code at sign-in, or a "Verify email address" link',
  },
  google: {
    displayName: 'Google',
    senderDomains: ['google.com', 'accounts.google.com'],
    sends: 'code',
    code: { lengths: [6], alphabet: 'digits', prefix: 'G-' },
    start: 'https://accounts.google.com/signup',
    mail: 'a 6-digit code, often shown as G-123456 (type only the digits)',
    tip: 'Google usually also asks for a phone number; an inbox alone may not be enough to finish sign-up.',
  },
  microsoft: {
    displayName: 'Microsoft',
    senderDomains: [
      'microsoft.com',
      'accountprotection.microsoft.com',
      'microsoftonline.com',
      'office.com',
      'office365.com',
      'microsoft365.com',
      'azure.com',
    ],
    sends: 'code',
    code: { lengths: [6, 7, 8], alphabet: 'digits' },
    start: 'https://signup.live.com',
    mail: 'a 6- to 8-digit security code',
  },
  apple: {
    displayName: 'Apple',
    senderDomains: ['apple.com', 'email.apple.com', 'id.apple.com', 'insideapple.apple.com'],
    sends: 'code',
    code: { lengths: [6], alphabet: 'digits' },
    start: 'https://account.apple.com',
    mail: 'a 6-digit verification code for the e-mail address',
  },
  amazon: {
    displayName: 'Amazon',
    senderDomains: [
      'amazon.com',
      'amazon.co.uk',
      'amazon.de',
      'amazon.fr',
      'amazon.it',
      'amazon.es',
      'amazon.nl',
      'amazon.se',
      'amazon.pl',
      'amazon.com.be',
      'amazon.co.jp',
      'amazon.ca',
      'amazon.com.au',
      'amazon.in',
      'amazon.com.br',
      'amazon.com.mx',
      'amazon.sg',
      'amazon.ae',
      'amazon.sa',
      'amazon.com.tr',
      'amazon.eg',
      'amazon.cn',
    ],
    sends: 'code',
    code: { lengths: [6], alphabet: 'digits' },
    start: 'https://www.amazon.com/ap/register',
    mail: 'a 6-digit one-time password (OTP)',
  },
  slack: {
    displayName: 'Slack',
    senderDomains: ['slack.com', 'slackhq.com'],
    sends: 'both',
    code: { lengths: [6], alphabet: 'alphanumeric' },
    start: 'https://slack.com/get-started',
    mail: 'a 6-character confirmation code shown as ABC-123 (type it with the dash) or a magic sign-in link',
  },
  discord: {
    displayName: 'Discord',
    senderDomains: ['discord.com', 'discordapp.com'],
    sends: 'both',
    code: { lengths: [6], alphabet: 'digits' },
    start: 'https://discord.com/register',
    mail: 'a "Verify Email" link (often a click-tracking redirect) or a 6-digit login code',
  },
  notion: {
    displayName: 'Notion',
    senderDomains: ['notion.so', 'mail.notion.so', 'makenotion.com', 'notion.com'],
    sends: 'both',
    code: { lengths: [6], alphabet: 'digits' },
    start: 'https://www.notion.so/signup',
    mail: 'a temporary login code and a magic link (either works)',
  },
  stripe: {
    displayName: 'Stripe',
    senderDomains: ['stripe.com'],
    sends: 'both',
    code: { lengths: [6], alphabet: 'digits' },
    start: 'https://dashboard.stripe.com/register',
    mail: 'a "Verify email" link; sign-in may ask for a 6-digit code',
  },
  shopify: {
    displayName: 'Shopify',
    senderDomains: ['shopify.com', 'shopifyemail.com', 'myshopify.com'],
    sends: 'both',
    code: { lengths: [6], alphabet: 'digits' },
    start: 'https://accounts.shopify.com/signup',
    mail: 'a 6-digit login code, or (for a store\'s customer account) an "Activate your account" link',
  },
  atlassian: {
    displayName: 'Atlassian',
    senderDomains: ['atlassian.com', 'id.atlassian.com', 'atlassian.net'],
    sends: 'both',
    code: { lengths: [6], alphabet: 'alphanumeric' },
    start: 'https://id.atlassian.com/signup',
    mail: 'a 6-character verification code or a "Verify your email" link',
  },
  dropbox: {
    displayName: 'Dropbox',
    senderDomains: ['dropbox.com', 'dropboxmail.com'],
    sends: 'both',
    code: { lengths: [6], alphabet: 'digits' },
    start: 'https://www.dropbox.com/register',
    mail: 'a "Verify your email" link or a 6-digit security code',
  },
  linkedin: {
    displayName: 'LinkedIn',
    senderDomains: ['linkedin.com'],
    sends: 'both',
    code: { lengths: [6], alphabet: 'digits' },
    start: 'https://www.linkedin.com/signup',
    mail: 'a 6-digit verification PIN (also in the Subject)',
  },
  x: {
    displayName: 'X',
    senderDomains: ['x.com', 'twitter.com'],
    sends: 'code',
    code: { lengths: [6, 8], alphabet: 'alphanumeric' },
    start: 'https://x.com/i/flow/signup',
    mail: 'a confirmation code (6 digits or 8 lower-case letters and digits; keep the case)',
  },
  facebook: {
    displayName: 'Facebook',
    senderDomains: ['facebook.com', 'facebookmail.com', 'fb.com', 'meta.com'],
    sends: 'both',
    code: { lengths: [5, 6, 8], alphabet: 'digits', prefix: 'FB-' },
    start: 'https://www.facebook.com/r.php',
    mail: 'a 5- to 8-digit code, sometimes shown as FB-12345 (type only the digits), and/or a "Confirm" link',
  },
  instagram: {
    displayName: 'Instagram',
    senderDomains: ['instagram.com', 'mail.instagram.com'],
    sends: 'both',
    code: { lengths: [6], alphabet: 'digits' },
    start: 'https://www.instagram.com/accounts/emailsignup/',
    mail: 'a 6-digit confirmation or security code',
  },
  airbnb: {
    displayName: 'Airbnb',
    senderDomains: [
      'airbnb.com',
      'airbnbmail.com',
      'airbnb.co.uk',
      'airbnb.de',
      'airbnb.fr',
      'airbnb.es',
      'airbnb.it',
      'airbnb.ca',
      'airbnb.com.au',
      'airbnb.co.in',
      'airbnb.jp',
      'airbnb.com.br',
      'airbnb.mx',
      'airbnb.nl',
    ],
    sends: 'both',
    code: { lengths: [6], alphabet: 'digits' },
    start: 'https://www.airbnb.com/signup_login',
    mail: 'a "Confirm email" link (click-tracking redirect) or a 6-digit code',
    tip: 'A reservation "confirmation code" is a booking reference, not a verification code.',
  },
  uber: {
    displayName: 'Uber',
    senderDomains: ['uber.com'],
    sends: 'code',
    code: { lengths: [4], alphabet: 'digits' },
    start: 'https://auth.uber.com',
    mail: 'a 4-digit verification code',
  },
  netflix: {
    displayName: 'Netflix',
    senderDomains: ['netflix.com', 'account.netflix.com', 'mailer.netflix.com'],
    sends: 'both',
    code: { lengths: [4], alphabet: 'digits' },
    start: 'https://www.netflix.com/signup',
    mail: 'a 4-digit sign-in code, or a sign-in / household link',
  },
  spotify: {
    displayName: 'Spotify',
    senderDomains: ['spotify.com'],
    sends: 'both',
    code: { lengths: [6], alphabet: 'digits' },
    start: 'https://www.spotify.com/signup',
    mail: 'a 6-digit login code, or a reset / confirm link',
  },
  zoom: {
    displayName: 'Zoom',
    senderDomains: ['zoom.us', 'zoom.com', 'zoomgov.com'],
    sends: 'both',
    code: { lengths: [6], alphabet: 'digits' },
    start: 'https://zoom.us/signup',
    mail: 'an "Activate account" link at sign-up, or a 6-digit sign-in code',
    tip: 'Meeting IDs and meeting passcodes in invitations are not verification codes.',
  },
  openai: {
    displayName: 'OpenAI',
    senderDomains: ['openai.com', 'tm.openai.com', 'email.openai.com', 'chatgpt.com'],
    sends: 'both',
    code: { lengths: [6], alphabet: 'digits' },
    start: 'https://chatgpt.com/auth/login',
    mail: 'a 6-digit code (also in the Subject) or a "Verify email address" link',
  },
  figma: {
    displayName: 'Figma',
    senderDomains: ['figma.com'],
    sends: 'both',
    code: { lengths: [5, 6], alphabet: 'digits' },
    start: 'https://www.figma.com/signup',
    mail: 'a "Verify email" link, or a login code together with a one-click login link',
  },
  vercel: {
    displayName: 'Vercel',
    senderDomains: ['vercel.com'],
    sends: 'both',
    code: { lengths: [6], alphabet: 'digits' },
    start: 'https://vercel.com/signup',
    mail: 'a "Sign In" / verify link; newer flows send a 6-digit code',
  },
  paypal: {
    displayName: 'PayPal',
    senderDomains: [
      'paypal.com',
      'paypal.de',
      'paypal.co.uk',
      'paypal.fr',
      'paypal.it',
      'paypal.es',
      'paypal.nl',
      'paypal.at',
      'paypal.ch',
      'paypal.be',
      'paypal.pl',
      'paypal.ca',
      'paypal.com.au',
      'paypal.com.br',
      'paypal.com.mx',
      'paypal.jp',
      'paypal.cn',
      'paypal-communication.com',
    ],
    sends: 'both',
    code: { lengths: [6], alphabet: 'digits' },
    start: 'https://www.paypal.com/signup',
    mail: 'a 6-digit security code, or a "Confirm your email" link',
  },
};

function recipeOf(id: PresetId, d: Def): Preset['recipe'] {
  const what = d.sends === 'code' ? 'a code' : d.sends === 'link' ? 'a link' : 'a code or a link';
  const steps = [
    `Create an inbox: POST /v1/agent/verify with {"service":"${id}"} and read email.address.`,
    `Open ${d.start} and enter that address where ${d.displayName} asks for an e-mail; submit the form.`,
    `Wait for the mail: POST /v1/agent/verify with {"service":"${id}","inboxId":…,"timeoutSeconds":60}.`,
    'If agent.primaryAction.type is "otp", type its value into the code field exactly as given (keep letters\' case and dashes).',
    'If it is "link", open the link once in the same browser session; if it is "manual", read the raw message (rawUrl) and attachments.',
    'If status is "timeout", check the address was submitted, ask the service to resend, then wait again (the type is "retry").',
  ];
  if (d.tip) steps.push(d.tip);
  return { summary: `${d.displayName} sends ${what}: ${d.mail}.`, steps };
}

const PRESETS: ReadonlyMap<PresetId, Preset> = new Map(
  PRESET_IDS.map((id) => {
    const d = DEFS[id];
    const p: Preset = {
      id,
      displayName: d.displayName,
      senderDomains: d.senderDomains,
      sends: d.sends,
      recipe: recipeOf(id, d),
    };
    if (d.code) p.code = d.code;
    return [id, p] as const;
  }),
);

export function isPresetId(s: unknown): s is PresetId {
  return typeof s === 'string' && (PRESET_IDS as readonly string[]).includes(s);
}

export function getPreset(id: PresetId): Preset;
export function getPreset(id: string): Preset | undefined;
export function getPreset(id: string): Preset | undefined {
  return isPresetId(id) ? PRESETS.get(id) : undefined;
}

/** All presets, in PRESET_IDS order. */
export function listPresets(): Preset[] {
  return PRESET_IDS.map((id) => PRESETS.get(id)!);
}

const BY_DOMAIN = new Map<string, PresetId>();
for (const id of PRESET_IDS) for (const d of DEFS[id].senderDomains) BY_DOMAIN.set(d, id);

/** The preset whose mail domains include the From domain or one of its parent domains. */
export function serviceFromAddress(fromAddress: string): PresetId | null {
  if (typeof fromAddress !== 'string') return null;
  const at = fromAddress.lastIndexOf('@');
  let domain = (at >= 0 ? fromAddress.slice(at + 1) : fromAddress)
    .trim()
    .toLowerCase()
    .replace(/[>\s.]+$/, '');
  if (!domain) return null;
  for (let guard = 0; guard < 10 && domain.includes('.'); guard++) {
    const hit = BY_DOMAIN.get(domain);
    if (hit) return hit;
    domain = domain.slice(domain.indexOf('.') + 1);
  }
  return null;
}
