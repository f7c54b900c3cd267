// The Family A edge around the routes: GET /health, the OpenAPI document, the `{error}` envelope for 404, 405,
// 413, 415 and malformed bodies (spec 7), and the request id on every answer and every log line.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAMILY_A_SCHEMAS } from '../../../http/family-a/index.js';
import { Contract, startHarness, validBody, type Harness } from './support.js';

const LIMIT = 1024;
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ bodyLimitBytes: LIMIT });
});
afterAll(async () => h.close());
beforeEach(() => {
  h.bus.calls.length = 0;
});

/** A raw request, for what fetch will not send (chunked bodies without a length). */
function rawPost(path: string, headers: Record<string, string>, chunks: Buffer[]): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const url = new URL(h.base + path);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method: 'POST', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    // The server may answer 413 and stop reading before all chunks are out.
    req.on('error', reject);
    for (const c of chunks) req.write(c);
    req.end();
  });
}

describe('GET /health: "200 with content type `text/plain; charset=utf-8` and body `ok`"', () => {
  it('answers exactly that', async () => {
    const res = await h.call('/health');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe('ok');
  });
  it('HEAD answers the same headers without a body', async () => {
    const res = await h.call('/health', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe('');
  });
});

describe('Versioning (9): "the machine-readable description of Family A carries version `0.2.47`"', () => {
  it('GET /openapi.json is an OpenAPI 3.1 document of version 0.2.47 with POST /quote and GET /health', async () => {
    const res = await h.call('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.info.version).toBe('0.2.47');
    expect(Object.keys(res.body.paths['/quote'])).toEqual(['post']);
    const post = res.body.paths['/quote'].post;
    expect(post.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Quote' });
    expect(post.responses['400'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(post.responses['422'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/QuoteRefusal' });
    expect(Object.keys(res.body.paths['/health'].get.responses['200'].content)).toEqual(['text/plain; charset=utf-8']);
  });
  it('every response schema of the document compiles and every $ref in it resolves', async () => {
    const contract = await Contract.load(h.base);
    let compiled = 0;
    for (const [path, item] of Object.entries(contract.doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>)) {
      for (const [method, op] of Object.entries(item)) {
        for (const status of Object.keys(op.responses)) {
          expect(() => contract.validator(path, method, Number(status)), `${method} ${path} ${status}`).not.toThrow();
          compiled++;
        }
      }
    }
    expect(compiled).toBeGreaterThanOrEqual(3 + 2 + 2);
  });
  it('serves the very schemas the app validates with', async () => {
    const res = await h.call('/openapi.json');
    expect(res.body.components.schemas).toEqual(JSON.parse(JSON.stringify(FAMILY_A_SCHEMAS)));
    expect(res.body.components.schemas.VenueId.enum).toHaveLength(21);
  });
});

describe('Errors (7): "every non-success status returns a JSON object `{error: string}`"', () => {
  it('an unknown path is a 404', async () => {
    const res = await h.call('/quotes');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'No resource at GET /quotes.' });
    expect((await h.call('/order/3f1c/extra', { method: 'POST', json: {} })).status).toBe(404);
  });
  it('a known path with another method is a 405 that lists the allowed methods', async () => {
    const get = await h.call('/quote');
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(get.body).toEqual({ error: 'Method GET is not allowed on /quote; use POST.' });
    const post = await h.call('/health', { method: 'POST', json: {} });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'HEAD']);
    expect(h.bus.calls).toHaveLength(0);
  });
  it('OPTIONS on a known path answers the allowed methods without a body', async () => {
    const res = await h.call('/quote', { method: 'OPTIONS' });
    expect(res.status).toBe(200);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.text).toBe('');
  });
  it('a method the edge does not implement is a 501 envelope', async () => {
    const res = await h.call('/quote', { method: 'PROPFIND' });
    expect(res.status).toBe(501);
    expect(res.body).toEqual({ error: 'Method PROPFIND is not implemented.' });
  });
});

describe('Request body: JSON only, within the size limit', () => {
  it('malformed JSON is a 400', async () => {
    const res = await h.call('/quote', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"from": "base.usdc",' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'The request body is not valid JSON.' });
  });
  it('an empty body is a 400', async () => {
    const typed = await h.call('/quote', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '' });
    expect(typed.status).toBe(400);
    expect(typed.body).toEqual({ error: 'The request body is empty; send a JSON object.' });
    const bare = await h.call('/quote', { method: 'POST' });
    expect(bare.status).toBe(400);
    expect(bare.body).toEqual({ error: 'The request body is required and must be a JSON object.' });
  });
  it('bytes that are not UTF-8 are a 400', async () => {
    const res = await h.call('/quote', { method: 'POST', headers: { 'content-type': 'application/json' }, body: new Uint8Array([0x7b, 0xff, 0x7d]) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'The request body is not valid UTF-8.' });
  });
  it('a body that is not `application/json` is a 415', async () => {
    const text = await h.call('/quote', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify(validBody()) });
    expect(text.status).toBe(415);
    expect(text.body).toEqual({ error: 'Content-Type must be application/json.' });
    const untyped = await h.call('/quote', { method: 'POST', body: new TextEncoder().encode(JSON.stringify(validBody())) });
    expect(untyped.status).toBe(415);
    const form = await h.call('/quote', { method: 'POST', body: new URLSearchParams({ from: 'base.usdc' }) });
    expect(form.status).toBe(415);
  });
  it('a charset other than utf-8, or a compressed body, is a 415', async () => {
    const latin = await h.call('/quote', { method: 'POST', headers: { 'content-type': 'application/json; charset=iso-8859-1' }, body: JSON.stringify(validBody()) });
    expect(latin.status).toBe(415);
    const gzip = await h.call('/quote', { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: JSON.stringify(validBody()) });
    expect(gzip.status).toBe(415);
    const utf8 = await h.call('/quote', { method: 'POST', headers: { 'content-type': 'application/json; charset=UTF-8' }, body: JSON.stringify(validBody()) });
    expect(utf8.status).toBe(200);
  });
  // RFC 9110 §8.3.1: type, subtype, parameter names and the charset value are case-insensitive; OWS around `;`;
  // a parameter value may be a quoted-string. `+json` is the structured syntax suffix (RFC 6839 §3.1).
  it.each([
    'Application/JSON',
    'APPLICATION/JSON; CHARSET=UTF-8',
    'application/json ; charset=utf-8',
    'application/json;charset="utf-8"',
    'application/problem+json',
    'application/vnd.api+JSON',
  ])('Content-Type `%s` is JSON in utf-8 (a 200)', async (contentType) => {
    const res = await h.call('/quote', { method: 'POST', headers: { 'content-type': contentType }, body: JSON.stringify(validBody()) });
    expect(res.status).toBe(200);
    expect(h.bus.calls).toHaveLength(1);
  });
  it.each([
    ['text/plain', 'Content-Type must be application/json.'],
    ['application/jsonx', 'Content-Type must be application/json.'],
    ['text/vnd.x+json', 'Content-Type must be application/json.'],
    ['application/json; charset=latin1', 'The request body must be encoded in utf-8.'],
    ['Application/JSON; Charset="ISO-8859-1"', 'The request body must be encoded in utf-8.'],
  ])('Content-Type `%s` is a 415', async (contentType, error) => {
    const res = await h.call('/quote', { method: 'POST', headers: { 'content-type': contentType }, body: JSON.stringify(validBody()) });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ error });
    expect(h.bus.calls).toHaveLength(0);
  });
  it('no Content-Type is a 415 when a body is sent, a 400 when none is', async () => {
    const json = Buffer.from(JSON.stringify(validBody()));
    const untyped = await rawPost('/quote', { 'content-length': String(json.length) }, [json]);
    expect(untyped.status).toBe(415);
    expect(JSON.parse(untyped.body)).toEqual({ error: 'Content-Type must be application/json.' });
    const bare = await h.call('/quote', { method: 'POST' });
    expect(bare.status).toBe(400);
    expect(bare.body).toEqual({ error: 'The request body is required and must be a JSON object.' });
    expect(h.bus.calls).toHaveLength(0);
  });
  it(`a body of exactly the limit (${LIMIT} bytes) is read; one byte more is a 413`, async () => {
    const json = JSON.stringify(validBody());
    const exact = json + ' '.repeat(LIMIT - Buffer.byteLength(json));
    const ok = await h.call('/quote', { method: 'POST', headers: { 'content-type': 'application/json' }, body: exact });
    expect(ok.status).toBe(200);
    const over = await h.call('/quote', { method: 'POST', headers: { 'content-type': 'application/json' }, body: exact + ' ' });
    expect(over.status).toBe(413);
    expect(over.body).toEqual({ error: `The request body is larger than ${LIMIT} bytes.` });
    expect(h.bus.calls).toHaveLength(1);
  });
  it('a chunked body is cut off at the limit too (no Content-Length to trust)', async () => {
    const chunk = Buffer.alloc(600, 0x20);
    const res = await rawPost('/quote', { 'content-type': 'application/json', 'transfer-encoding': 'chunked', 'x-request-id': 'rid-chunked' }, [chunk, chunk, chunk]);
    expect(res.status).toBe(413);
    expect(res.headers['x-request-id']).toBe('rid-chunked');
    expect(JSON.parse(res.body)).toEqual({ error: `The request body is larger than ${LIMIT} bytes.` });
    expect(h.bus.calls).toHaveLength(0);
  });
  it('a huge declared body is refused before it is read', async () => {
    const big = '{"from":"' + 'x'.repeat(200_000) + '"}';
    const res = await h.call('/quote', { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(res.status).toBe(413);
  });
});

describe('Request id: X-Request-Id on every answer, bound to every log line', () => {
  it('keeps a caller\'s id of 1–128 characters of [A-Za-z0-9._:-]', async () => {
    for (const id of ['a', 'abc-DEF_0.9:z', 'x'.repeat(128)]) {
      const res = await h.call('/health', { headers: { 'X-Request-Id': id } });
      expect(res.headers.get('x-request-id')).toBe(id);
    }
  });
  it('replaces anything else with a fresh uuid', async () => {
    const seen = new Set<string>();
    for (const id of ['', 'has space', 'x'.repeat(129), 'semi;colon', 'slash/inside']) {
      const res = await h.call('/health', { headers: { 'X-Request-Id': id } });
      const got = res.headers.get('x-request-id')!;
      expect(got).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      seen.add(got);
    }
    expect(seen.size).toBe(5);
  });
  it('is on 200, 400, 404, 405, 413 and 415 alike (the harness checks it on every other answer too)', async () => {
    const answers = [
      await h.post(validBody(), { 'X-Request-Id': 'r-200' }),
      await h.post({}, { 'X-Request-Id': 'r-400' }),
      await h.call('/nope', { headers: { 'X-Request-Id': 'r-404' } }),
      await h.call('/quote', { headers: { 'X-Request-Id': 'r-405' } }),
      await h.call('/quote', { method: 'POST', headers: { 'content-type': 'application/json', 'X-Request-Id': 'r-413' }, body: ' '.repeat(LIMIT + 1) }),
      await h.call('/quote', { method: 'POST', headers: { 'content-type': 'text/csv', 'X-Request-Id': 'r-415' }, body: 'a,b' }),
    ];
    expect(answers.map((a) => [a.status, a.headers.get('x-request-id')])).toEqual([
      [200, 'r-200'], [400, 'r-400'], [404, 'r-404'], [405, 'r-405'], [413, 'r-413'], [415, 'r-415'],
    ]);
  });
  it('travels to the actor with the command', async () => {
    await h.post(validBody(), { 'X-Request-Id': 'r-bus' });
    expect(h.bus.calls[0]!.opts).toEqual({ requestId: 'r-bus' });
  });
  it('writes one access line per request, with method, path, status and ms, under the request id', async () => {
    await h.post(validBody({ from: 1 }), { 'X-Request-Id': 'r-log' });
    const lines = h.logs.filter((l) => l.req_id === 'r-log');
    const access = lines.filter((l) => l.msg === 'request');
    expect(access).toHaveLength(1);
    expect(access[0]).toMatchObject({ method: 'POST', path: '/quote', status: 400 });
    expect(typeof access[0]!.ms).toBe('number');
    // The refusal line is bound to the same id, and the access line comes last.
    expect(lines.map((l) => l.msg)).toEqual(['request refused', 'request']);
    expect(lines[0]).toMatchObject({ status: 400, error: '`from` must be a string.' });
  });
});
