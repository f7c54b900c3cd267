// An HTTP call as a careful client of a cluster makes it: a 503 or a refused connection means "try again", for a
// while (a shard moving between workers, an edge still starting).
import { pollUntil } from './poll.js';

export async function call(method: 'GET' | 'POST', url: string, body?: unknown, ms = 20_000): Promise<{ status: number; body: any }> {
  const attempt = async () => {
    let status = 0;
    let json: any = null;
    try {
      const r = await fetch(url, {
        method,
        headers: body !== undefined ? { 'content-type': 'application/json' } : {},
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      status = r.status;
      const text = await r.text();
      json = text ? JSON.parse(text) : null;
    } catch {
      status = 0;
    }
    return { status, body: json };
  };
  return pollUntil(attempt, (r) => r.status !== 503 && r.status !== 0, ms, 100);
}
