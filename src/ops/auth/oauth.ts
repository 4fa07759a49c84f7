// OAuth 2.0 client_credentials (RFC 6749 §4.4), client registration, and the discovery documents of RFC 8414 and
// RFC 9728 that let an MCP client find out how to authenticate.
import { z } from 'zod';
import { oauthError, scopeOf, scopeString } from '../../auth/access.ts';
import { principal, singleLine } from '../common.ts';
import { op } from '../op.ts';
import { ToolsetView, toolsetListing } from '../toolsets.ts';
import { ScopeSchema, ScopeView } from './team.ts';

export const SCOPES_SUPPORTED = ['inboxes:read', 'inboxes:write', 'admin'];

export const token = op({
  name: 'oauth.token',
  summary: 'Exchange an API key for an access token',
  description:
    'OAuth 2.0 client_credentials. Send `grant_type=client_credentials` and the API key as `client_secret` — in a form or JSON body, or as the password of HTTP Basic. The token lives 3600 s and carries exactly the scope of the key.',
  access: 'public',
  http: {
    method: 'POST',
    path: '/v1/oauth/token',
    body: 'form',
    errors: 'oauth',
    headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
    bodyLimit: () => 16 * 1024,
  },
  input: z.object({
    grant_type: z.string().optional().describe('client_credentials'),
    client_secret: z.string().max(512).optional().describe('An API key (ibx_…)'),
    client_id: singleLine(z.string().max(200)).optional().describe('The client id, for keys of registered clients'),
    scope: z.string().max(1000).optional().describe('Ignored: the token always has the scope of its key'),
  }),
  output: z.object({ access_token: z.string(), token_type: z.literal('Bearer'), expires_in: z.number().int(), scope: z.string() }),
  audit: false,
  async handler(ctx, input) {
    if (input.grant_type === undefined) throw oauthError('invalid_request', 'grant_type is missing; send grant_type=client_credentials');
    if (input.grant_type !== 'client_credentials')
      throw oauthError(
        'unsupported_grant_type',
        `grant_type ${JSON.stringify(input.grant_type)} is not supported; only client_credentials is`,
      );
    let secret = input.client_secret;
    let clientId = input.client_id;
    // Only HTTP Basic is client authentication here; another scheme (a stray Bearer) is ignored.
    const authz = ctx.request.header('authorization');
    if (authz !== undefined && /^Basic\b/i.test(authz)) {
      if (secret !== undefined) throw oauthError('invalid_request', 'send the client secret either in HTTP Basic or in the body, not both');
      const basic = parseBasic(authz);
      secret = basic.secret;
      if (clientId !== undefined && basic.user !== clientId)
        throw oauthError('invalid_request', 'client_id in the body differs from the one in HTTP Basic');
      clientId = basic.user || undefined;
    }
    if (!secret)
      throw oauthError('invalid_client', 'client_secret is missing: send an API key as client_secret (body) or as the HTTP Basic password');
    const issued = await ctx.services.access.issueToken(secret, clientId, ctx.request.ip);
    return {
      access_token: issued.token,
      token_type: 'Bearer' as const,
      expires_in: issued.expiresIn,
      scope: scopeString(issued.key.role, scopeOf(issued.key)),
    };
  },
});

/**
 * RFC 6749 §2.3.1: `Basic base64(urlencode(client_id) ":" urlencode(client_secret))`. Anything malformed (no or bad
 * base64, no colon, bad percent-encoding, control characters) is a failed client authentication: 401 invalid_client.
 */
function parseBasic(header: string): { user: string; secret: string } {
  const bad = (why: string) =>
    oauthError('invalid_client', `malformed HTTP Basic credentials (${why}): send "Basic " + base64(client_id ":" client_secret)`);
  const m = /^Basic[ \t]+([A-Za-z0-9+/]{1,2048}={0,2})[ \t]*$/i.exec(header);
  if (!m || m[1]!.length % 4 === 1) throw bad('not base64');
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw bad('no colon between client_id and client_secret');
  const part = (raw: string, name: string) => {
    let v: string;
    try {
      v = decodeURIComponent(raw.replace(/\+/g, ' '));
    } catch {
      throw bad(`the ${name} is not valid percent-encoding`);
    }
    if (/[\u0000-\u001f\u007f\ufffd]/.test(v)) throw bad(`the ${name} contains control characters or bytes that are not UTF-8`);
    return v;
  };
  const user = part(decoded.slice(0, colon), 'client_id');
  const secret = part(decoded.slice(colon + 1), 'client_secret');
  if (user.length > 200 || secret.length > 512) throw bad('too long');
  return { user, secret };
}

const ClientView = z.object({
  client_id: z.string(),
  client_name: z.string(),
  scope: ScopeView,
  client_id_issued_at: z.number().int().describe('Seconds since the epoch'),
  grant_types: z.array(z.string()),
  token_endpoint_auth_method: z.string(),
});

export const register = op({
  name: 'oauth.register',
  summary: 'Register an OAuth client (a dedicated tool-client key)',
  description: 'Creates a client and an API key bound to it. `client_secret` is that key, shown only in this response.',
  access: 'admin',
  http: { method: 'POST', path: '/v1/oauth/register', status: 201, headers: { 'Cache-Control': 'no-store' } },
  input: z.strictObject({ client_name: singleLine(z.string().min(1).max(200)), scope: ScopeSchema.optional() }),
  output: ClientView.extend({ client_secret: z.string(), client_secret_expires_at: z.literal(0) }),
  audit: { action: 'client.register', target: (_i, o) => o.client_id },
  async handler(ctx, input) {
    const { client, key, secret } = await ctx.services.access.registerClient(principal(ctx), {
      name: input.client_name,
      scope: input.scope,
    });
    return {
      client_id: client.id,
      client_name: client.name,
      scope: scopeOf(key),
      client_id_issued_at: Math.floor(client.created_at / 1000),
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'client_secret_basic',
      client_secret: secret,
      client_secret_expires_at: 0 as const,
    };
  },
});

export const getClient = op({
  name: 'oauth.clients.get',
  summary: 'Get an OAuth client (never its secret)',
  access: 'admin',
  http: { method: 'GET', path: '/v1/oauth/clients/:id' },
  input: z.strictObject({ id: z.string().min(1).max(64).describe('Client id (cli_…)') }),
  output: ClientView.extend({ revoked: z.boolean(), keyId: z.string().nullable() }),
  async handler(ctx, input) {
    const { client, key } = await ctx.services.access.client(principal(ctx), input.id);
    return {
      client_id: client.id,
      client_name: client.name,
      scope: key ? scopeOf(key) : { labelPrefix: null, readOnly: true },
      client_id_issued_at: Math.floor(client.created_at / 1000),
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'client_secret_basic',
      revoked: !key || key.revoked_at !== null,
      keyId: key?.id ?? null,
    };
  },
});

export const authorize = op({
  name: 'oauth.authorize',
  summary: 'Authorization endpoint (not used: only client_credentials is supported)',
  description:
    'Present because OAuth clients require an authorization_endpoint in the metadata; it always answers unsupported_response_type.',
  access: 'public',
  http: { method: 'GET', path: '/v1/oauth/authorize', errors: 'oauth' },
  input: z.object({}).passthrough(),
  output: z.object({}),
  audit: false,
  handler() {
    throw oauthError(
      'unsupported_response_type',
      'inboxd supports only the client_credentials grant: POST /v1/oauth/token with an API key as client_secret',
    );
  },
});

export const authorizationServerMetadata = op({
  name: 'oauth.metadata',
  summary: 'OAuth authorization server metadata (RFC 8414)',
  access: 'public',
  http: { method: 'GET', path: '/.well-known/oauth-authorization-server' },
  input: z.strictObject({}),
  output: z.object({
    issuer: z.string(),
    token_endpoint: z.string(),
    registration_endpoint: z.string(),
    authorization_endpoint: z.string(),
    grant_types_supported: z.array(z.string()),
    response_types_supported: z.array(z.string()),
    token_endpoint_auth_methods_supported: z.array(z.string()),
    scopes_supported: z.array(z.string()),
    service_documentation: z.string(),
  }),
  audit: false,
  handler(ctx) {
    const base = ctx.services.baseUrl();
    return {
      // The root path keeps its slash: OAuth libraries compare the issuer with a URL's href, which always has it.
      issuer: `${base}/`,
      token_endpoint: `${base}/v1/oauth/token`,
      registration_endpoint: `${base}/v1/oauth/register`,
      authorization_endpoint: `${base}/v1/oauth/authorize`,
      grant_types_supported: ['client_credentials'],
      response_types_supported: ['token'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      scopes_supported: SCOPES_SUPPORTED,
      service_documentation: `${base}/v1`,
    };
  },
});

export const protectedResourceMetadata = op({
  name: 'oauth.resource_metadata',
  summary: 'Protected resource metadata of the MCP endpoint (RFC 9728)',
  access: 'public',
  http: { method: 'GET', path: '/.well-known/oauth-protected-resource/mcp' },
  input: z.strictObject({}),
  output: z.object({
    resource: z.string(),
    authorization_servers: z.array(z.string()),
    bearer_methods_supported: z.array(z.string()),
    scopes_supported: z.array(z.string()),
    resource_name: z.string(),
    resource_documentation: z.string(),
  }),
  audit: false,
  handler(ctx) {
    const base = ctx.services.baseUrl();
    return {
      resource: `${base}/mcp`,
      authorization_servers: [`${base}/`],
      bearer_methods_supported: ['header'],
      scopes_supported: SCOPES_SUPPORTED,
      resource_name: 'inboxd MCP tool server',
      resource_documentation: `${base}/v1`,
    };
  },
});

export const mcpAuth = op({
  name: 'mcp.auth',
  summary: 'How to authenticate to the MCP tool server',
  access: 'public',
  http: { method: 'GET', path: '/mcp/auth' },
  input: z.strictObject({}),
  output: z.object({
    resource: z.string(),
    resource_metadata: z.string(),
    authorization_server_metadata: z.string(),
    token_endpoint: z.string(),
    header: z.string(),
    accepts: z.array(z.string()),
    toolsets: z
      .array(ToolsetView)
      .describe('Choose per connection: /mcp?toolsets=verify,search (default: --mcp-toolsets, else every tool)'),
  }),
  audit: false,
  handler(ctx) {
    const base = ctx.services.baseUrl();
    return {
      resource: `${base}/mcp`,
      resource_metadata: `${base}/.well-known/oauth-protected-resource/mcp`,
      authorization_server_metadata: `${base}/.well-known/oauth-authorization-server`,
      token_endpoint: `${base}/v1/oauth/token`,
      header: 'Authorization: Bearer <API key or access token>',
      accepts: ['API key (ibx_…)', 'access token (ibt_…) from POST /v1/oauth/token with grant_type=client_credentials'],
      toolsets: toolsetListing(ctx.operations.flatMap((o) => (o.tool ? [o.tool.name] : []))),
    };
  },
});

export const oauthOps = [token, register, getClient, authorize, authorizationServerMetadata, protectedResourceMetadata, mcpAuth];
