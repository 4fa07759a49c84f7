// Rules that say something about the test set-up, not about the mail (issue 28): a sink on loopback has no reverse
// DNS, no Received chain and no DNS for block lists. Findings of these rules are tagged `environmental`, and
// `meta.scoreWithoutEnvironmental` leaves their points out, so a build can ignore them.
const SPAMD = new Set([
  'RDNS_NONE',
  'RDNS_DYNAMIC',
  'NO_RELAYS',
  'NO_RECEIVED',
  'ALL_TRUSTED',
  'HELO_DYNAMIC_IPADDR',
  'HELO_DYNAMIC_IPADDR2',
  'HELO_NO_DOMAIN',
  'SPF_NONE',
  'SPF_HELO_NONE',
  'T_SPF_TEMPERROR',
  'T_SPF_HELO_TEMPERROR',
  'URIBL_BLOCKED',
  'DKIM_ADSP_NXDOMAIN',
]);
const SPAMD_PREFIXES = ['RCVD_IN_', 'URIBL_DBL_BLOCKED', 'DNSWL_'];

const RSPAMD = new Set([
  'RDNS_NONE',
  'RDNS_DYNAMIC',
  'HFILTER_HELO_IP_A',
  'HFILTER_HELO_BAREIP',
  'HFILTER_HELO_NOT_FQDN',
  'HFILTER_HELO_NORES_A_OR_MX',
  'HFILTER_HELO_BADIP',
  'HFILTER_HOSTNAME_UNKNOWN',
  'HFILTER_HOSTNAME_5',
  'RCVD_COUNT_ZERO',
  'RCVD_NO_TLS_LAST',
  'ONCE_RECEIVED',
  'AUTH_NA',
  'R_SPF_NA',
  'R_SPF_DNSFAIL',
  'R_DKIM_NA',
  'R_DKIM_TEMPFAIL',
  'DMARC_NA',
  'DMARC_DNSFAIL',
  'ARC_NA',
  'ASN',
]);
/** rspamd names its failed DNS list lookups `<LIST>_FAIL` (RSPAMD_URIBL_FAIL, SEM_URIBL_UNKNOWN_FAIL, RBL_…_FAIL). */
const RSPAMD_PATTERNS = [/^(RCVD_IN_|RBL_|RECEIVED_|DNSWL_)/, /URIBL.*_FAIL$/, /^[A-Z0-9_]*RBL[A-Z0-9_]*_FAIL$/];

export function isEnvironmental(engine: 'spamd' | 'rspamd', rule: string): boolean {
  if (engine === 'spamd') return SPAMD.has(rule) || SPAMD_PREFIXES.some((p) => rule.startsWith(p));
  return RSPAMD.has(rule) || RSPAMD_PATTERNS.some((p) => p.test(rule));
}
