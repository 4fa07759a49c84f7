// A real DNS server on 127.0.0.1 (dns2, UDP) serving a zone the test edits as it goes, for domain verification and
// DKIM checks. Names are matched case-insensitively; unknown names answer NOERROR with no records (node: ENODATA).
import dns2 from 'dns2';

export interface ZoneRecord {
  type: 'TXT' | 'MX';
  /** TXT: the value (split into ≤255-byte strings here, as a real zone would); MX: the exchange. */
  value: string;
  priority?: number;
}

export interface TestDns {
  /** `127.0.0.1:<port>` for --dns-server. */
  address: string;
  port: number;
  zone: Map<string, ZoneRecord[]>;
  set(name: string, records: ZoneRecord[]): void;
  /** Every question asked, `name type`, for tests that check what was looked up. */
  asked: string[];
  /** While true every question is answered SERVFAIL (a broken upstream), so lookups fail rather than find nothing. */
  failing: boolean;
  close(): Promise<void>;
}

/** TXT character-strings hold at most 255 bytes; a DKIM key is longer and must go as several (dns2 does not split). */
export function txtChunks(value: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < value.length; i += 255) out.push(value.slice(i, i + 255));
  return out.length ? out : [''];
}

export async function startDns(): Promise<TestDns> {
  const zone = new Map<string, ZoneRecord[]>();
  const asked: string[] = [];
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle(request, send) {
      const response = Packet.createResponseFromRequest(request);
      if (api.failing) {
        response.header.rcode = Packet.RCODE.SERVFAIL;
        send(response);
        return;
      }
      for (const q of request.questions) {
        const type = q.type === Packet.TYPE.MX ? 'MX' : q.type === Packet.TYPE.TXT ? 'TXT' : String(q.type);
        asked.push(`${q.name} ${type}`);
        for (const r of zone.get(q.name.toLowerCase()) ?? []) {
          if (r.type !== type) continue;
          if (r.type === 'TXT')
            response.answers.push({
              name: q.name,
              type: Packet.TYPE.TXT,
              class: Packet.CLASS.IN,
              ttl: 60,
              data: txtChunks(r.value),
            } as never);
          else
            response.answers.push({
              name: q.name,
              type: Packet.TYPE.MX,
              class: Packet.CLASS.IN,
              ttl: 60,
              exchange: r.value,
              priority: r.priority ?? 10,
            } as never);
        }
      }
      send(response);
    },
  });
  await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const port = (server.addresses().udp as { port: number }).port;
  const api: TestDns = {
    failing: false,
    address: `127.0.0.1:${port}`,
    port,
    zone,
    asked,
    set(name, records) {
      zone.set(name.toLowerCase(), records);
    },
    close: () => server.close() as Promise<void>,
  };
  return api;
}
