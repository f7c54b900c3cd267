// An HTTP call as a careful client of a cluster makes it: a 503 or a refused connection means "try again", for a
// while (a shard moving between workers, an edge still starting).
export async function call(method: 'GET' | 'POST', url: string, body?: unknown, ms = 20_000): Promise<{ status: number; body: any }> {
  const end = Date.now() + ms;
  for (;;) {
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
    if ((status !== 503 && status !== 0) || Date.now() > end) return { status, body: json };
    await new Promise((r) => setTimeout(r, 100));
  }
}
