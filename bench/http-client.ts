// The benches' HTTP client: node:http with a keep-alive Agent (lean), or undici's fetch (what the benches used
// first), chosen by BENCH_CLIENT=http|fetch. The client shares the machine's two cores with the service it measures:
// fetch cost it four to five times the CPU per call. Both time the same two instants from the call: the response
// headers (what a latency is read at) and the end of the body.
import http from 'node:http';

export type ClientKind = 'http' | 'fetch';

export interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** Call → response headers, ms. */
  headersMs: number;
  /** Call → end of the body, ms. */
  endMs: number;
}

export interface BenchClient {
  readonly kind: ClientKind;
  get(url: string): Promise<Answer>;
  post(url: string, body: string): Promise<Answer>;
  put(url: string, body: string): Promise<Answer>;
  close(): void;
}

export function clientKind(value: string | undefined): ClientKind {
  if (value === undefined || value === 'http') return 'http';
  if (value === 'fetch') return 'fetch';
  throw new Error(`BENCH_CLIENT must be http or fetch, got ${value}.`);
}

export function createClient(kind: ClientKind, sockets: number): BenchClient {
  return kind === 'http' ? httpClient(sockets) : fetchClient();
}

function httpClient(sockets: number): BenchClient {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  const send = (method: string, url: string, body: string | null) =>
    new Promise<Answer>((resolve, reject) => {
      const t0 = performance.now();
      const req = http.request(url, {
        method,
        agent,
        headers: body === null ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      });
      req.on('error', reject);
      req.on('response', (res) => {
        const headersMs = performance.now() - t0;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers[k] = v;
          resolve({ status: res.statusCode ?? 0, headers, text: Buffer.concat(chunks).toString('utf8'), headersMs, endMs: performance.now() - t0 });
        });
      });
      req.end(body ?? undefined);
    });
  return {
    kind: 'http',
    get: (url) => send('GET', url, null),
    post: (url, body) => send('POST', url, body),
    put: (url, body) => send('PUT', url, body),
    close: () => agent.destroy(),
  };
}

function fetchClient(): BenchClient {
  const send = async (method: string, url: string, body: string | null): Promise<Answer> => {
    const t0 = performance.now();
    const res = await fetch(url, body === null ? { method } : { method, headers: { 'content-type': 'application/json' }, body });
    const headersMs = performance.now() - t0;
    const text = await res.text();
    return { status: res.status, headers: Object.fromEntries(res.headers), text, headersMs, endMs: performance.now() - t0 };
  };
  return {
    kind: 'fetch',
    get: (url) => send('GET', url, null),
    post: (url, body) => send('POST', url, body),
    put: (url, body) => send('PUT', url, body),
    close: () => {},
  };
}
