// `--blob-store s3://bucket[/prefix]?endpoint=…&region=…&forcePathStyle=1`: where the blobs go. Secrets never belong
// in it (argv is visible in `ps`, env dumps and CI logs): the credentials come from AWS_ACCESS_KEY_ID /
// AWS_SECRET_ACCESS_KEY (/ AWS_SESSION_TOKEN) only, and a URL carrying anything like a key is refused.

export interface S3Location {
  bucket: string;
  /** Key prefix ('' or ending in '/'). */
  prefix: string;
  endpoint: string | undefined;
  region: string;
  forcePathStyle: boolean;
}

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

const KNOWN = new Set(['endpoint', 'region', 'forcePathStyle']);
const SECRET_LIKE = /key|secret|token|password|credential|signature|x-amz-/i;
// S3 bucket naming rules (3-63 characters, lower case, digits, dots, hyphens).
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Parses the setting; throws an Error whose message says what is wrong and what to do. */
export function parseS3Url(raw: string): S3Location {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error('--blob-store must be s3://bucket?endpoint=http://host:port&region=…&forcePathStyle=1');
  }
  if (u.protocol !== 's3:') throw new Error(`--blob-store: only s3:// is supported, not ${u.protocol}//`);
  if (u.username || u.password)
    throw new Error(
      '--blob-store must not carry credentials (they would show in `ps` and logs): set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment instead',
    );
  const bucket = u.hostname;
  if (!BUCKET.test(bucket)) throw new Error(`--blob-store: "${bucket}" is not a valid bucket name (3-63 of a-z, 0-9, '.', '-')`);
  for (const k of u.searchParams.keys()) {
    if (SECRET_LIKE.test(k))
      throw new Error(
        `--blob-store must not carry credentials (the "${k}" parameter): set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) in the environment instead`,
      );
    if (!KNOWN.has(k)) throw new Error(`--blob-store: unknown parameter "${k}" (known: endpoint, region, forcePathStyle)`);
  }
  const endpoint = u.searchParams.get('endpoint') ?? undefined;
  if (endpoint !== undefined) {
    let e: URL;
    try {
      e = new URL(endpoint);
    } catch {
      throw new Error(`--blob-store: endpoint "${endpoint}" is not a URL such as http://127.0.0.1:8080`);
    }
    if (e.protocol !== 'http:' && e.protocol !== 'https:') throw new Error('--blob-store: the endpoint must be an http:// or https:// URL');
    if (e.username || e.password || [...e.searchParams.keys()].some((k) => SECRET_LIKE.test(k)))
      throw new Error(
        '--blob-store: the endpoint must not carry credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment instead',
      );
  }
  const fps = u.searchParams.get('forcePathStyle');
  if (fps !== null && !['1', '0', 'true', 'false'].includes(fps)) throw new Error('--blob-store: forcePathStyle must be 1 or 0');
  let prefix = decodeURIComponent(u.pathname).replace(/^\/+/, '');
  if (prefix && !prefix.endsWith('/')) prefix += '/';
  return {
    bucket,
    prefix,
    endpoint,
    region: u.searchParams.get('region') || 'us-east-1',
    // A custom endpoint (Swift, MinIO, Ceph) usually has no per-bucket host names.
    forcePathStyle: fps === null ? endpoint !== undefined : fps === '1' || fps === 'true',
  };
}

/** The credentials from the environment, or an error naming the variables to set. */
export function s3CredentialsFromEnv(env: NodeJS.ProcessEnv): S3Credentials {
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey)
    throw new Error('--blob-store s3://… needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment (the bucket’s credentials)');
  return { accessKeyId, secretAccessKey, ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}) };
}

/** The setting as logs may show it (it holds no secret, but keep it to what identifies the bucket). */
export function describeS3(loc: S3Location): string {
  return `s3://${loc.bucket}/${loc.prefix} at ${loc.endpoint ?? `AWS ${loc.region}`}`;
}
