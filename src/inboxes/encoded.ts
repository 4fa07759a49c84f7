// One wake-up, one encoding. When mail wakes a thousand waiters, each of them answers the same message in the same
// shape; turning it into JSON per waiter would hold a thousand copies at once (and a body of control characters
// grows sixfold when escaped). So the answer's JSON is made once, tied to the value every waiter shares, and each
// edge writes those same bytes: GET wait as the body, SSE as the `result` event's data, MCP as the tool result
// (src/mcp/shared.ts keeps the SDK from serialising it again).
//
// Why two module-level WeakMaps are allowed here (issue 26 forbids module caches of services): they memoise a pure
// value — the JSON bytes of a view, a function of the view alone — and hold no service, repository, connection or
// setting. They are keyed by object identity: `byAnchor` by the object one server read once for its woken waiters
// (agent/pick.ts's considered message, from that server's own answer cache), `ofView` by the view `make()` built
// from it. No object is shared between two servers in one process, so no entry can answer another server (whose base
// URL or rows differ); the variant string also names the inbox. Entries go when their key is collected: nothing to
// start, stop or leak.

export interface Encoded<T = unknown> {
  view: T;
  /** JSON.stringify(view) as UTF-8, made once. */
  json: Buffer;
}

export function encode<T>(view: T): Encoded<T> {
  return { view, json: Buffer.from(JSON.stringify(view)) };
}

const byAnchor = new WeakMap<object, Map<string, Encoded>>();
const ofView = new WeakMap<object, Encoded>();

/**
 * The encoding of `make()` for this `anchor` (an object every waiter woken by one message holds, e.g. the message
 * as read once for all of them) and `variant` (what else the answer depends on); made on first use, dropped with
 * the anchor.
 */
export function encodedFor<T>(anchor: object, variant: string, make: () => T): Encoded<T> {
  let m = byAnchor.get(anchor);
  if (!m) byAnchor.set(anchor, (m = new Map()));
  let e = m.get(variant);
  if (!e) {
    m.set(variant, (e = encode(make())));
    if (typeof e.view === 'object' && e.view !== null) ofView.set(e.view, e);
  }
  return e as Encoded<T>;
}

/** The shared encoding of a value `encodedFor` handed out (undefined for any other value). */
export function encodingOf<T>(view: T): Encoded<T> | undefined {
  return typeof view === 'object' && view !== null ? (ofView.get(view) as Encoded<T> | undefined) : undefined;
}
