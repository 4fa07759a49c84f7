// Warns when requests arrive under a host the base URL does not name: rawUrl, links and the OAuth resource metadata
// carry the base URL, and a client that reached the server under another name (127.0.0.1 instead of localhost)
// refuses that metadata (the MCP SDK checks the resource) or follows links to a host it cannot reach.
import type Koa from 'koa';
import type { Logger } from '../log.ts';

/** Distinct hosts warned about before going quiet, so random Host headers cannot flood the log. */
const MAX_WARNED = 50;

export function hostCheck(baseUrl: () => string, log: Logger): Koa.Middleware {
  const warned = new Set<string>();
  let quiet = false;
  return async (ctx, next) => {
    const header = ctx.get('host');
    if (header && !quiet && !warned.has(header)) {
      let host: string | null = null;
      let expected = '';
      try {
        host = new URL(`http://${header}`).host;
        expected = new URL(baseUrl()).host;
      } catch {
        host = null; // a malformed Host header is the router's business, not a base-URL mismatch
      }
      if (host !== null && host !== expected) {
        warned.add(header);
        log.warn('request host differs from the base URL', {
          host,
          baseUrl: baseUrl(),
          hint: `links, rawUrl and OAuth metadata name ${expected}; clients reaching inboxd as ${host} may refuse them — start inboxd with --base-url http://${host} if that is its public name`,
        });
        if (warned.size >= MAX_WARNED) {
          quiet = true;
          log.warn(`requests arrived under ${MAX_WARNED} different hosts; no more host warnings until restart`);
        }
      }
    }
    await next();
  };
}
