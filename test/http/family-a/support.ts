// Harness of the Family A black-box tests: a fake Bus that records calls and answers canned core values through
// the same JSON codec as the real bus (order-world.ts stands in for the quote and order actors), the real app on 127.0.0.1:0, a log capture, and a checker that validates
// every answer against the OpenAPI document the app itself serves.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { pino, type Logger } from 'pino';
import { expect } from 'vitest';
import { withOrderPlacement } from '../../../actors/placement.js';
import { runtimeOver } from '../../support/fake-runtime.js';
import { createApp } from '../../../http/index.js';
import { assetById, findAsset } from '../../../src/assets/registry.js';
import { typedRequest, type OutgoingEnvelope } from '../../../src/bus/typed-request.js';
import type { ActorRef, Bus, EnvelopeHandler, RequestOptions } from '../../../src/bus/types.js';
import { fromErrorData, toErrorData } from '../../../src/errors.js';
import { QUOTE_VALIDITY_MS, type Quote, type QuoteRequest } from '../../../src/quotes/types.js';
import type { PricedRoute, QuoteAudit, RouteStep } from '../../../src/routing/types.js';
import { isCommandOf, type AnyCommand } from '../../../src/protocol/index.js';
import { roundTrip } from '../../../src/store/codec.js';
import type { Execution, VenueId } from '../../../src/venues/types.js';

export const QUOTED_AT = Date.parse('2026-11-22T10:00:00.000Z');

export const id = (chain: Parameters<typeof findAsset>[0], symbol: string) => findAsset(chain, symbol)!.id;
export const BASE_USDC = id('base', 'USDC');
export const BASE_CBBTC = id('base', 'cbBTC');
export const ARB_USDC = id('arbitrum', 'USDC');
export const BTC = 'bitcoin.btc';

// ---------------------------------------------------------------------------------------------------------------
// Canned core values

function executionOn(asset: string): Execution {
  const a = assetById(asset);
  if (a.chain === 'bitcoin') return { mode: 'bitcoin' };
  if (a.chain === 'hyperliquid') return { mode: 'hyperliquid' };
  return { mode: 'evm', chain: Number(asset.slice(4, asset.indexOf('.'))) };
}

/** Moves an amount between decimals the way a 1:1 venue would (bigint only). */
function rescale(amount: bigint, fromDecimals: number, toDecimals: number): bigint {
  return toDecimals >= fromDecimals
    ? amount * 10n ** BigInt(toDecimals - fromDecimals)
    : amount / 10n ** BigInt(fromDecimals - toDecimals);
}

/** One step through `venue`: 1% execution cost before the venue, the venue keeps 0.5%. */
export function step(venue: VenueId, from: string, to: string, stepAmountIn: bigint, execution = executionOn(from)): RouteStep {
  const venueAmountIn = stepAmountIn - stepAmountIn / 100n;
  const venueAmountOut = rescale(venueAmountIn - venueAmountIn / 200n, assetById(from).decimals, assetById(to).decimals);
  return { venue, from, to, execution, stepAmountIn, venueAmountIn, venueAmountOut, stepAmountOut: venueAmountOut };
}

/** A route through `hops` (asset ids, first = from, last = to) whose amounts satisfy every invariant of spec 2.2–2.3. */
export function pricedRoute(amountIn: bigint, hops: string[], venues: VenueId[], executions: Execution[] = []): PricedRoute {
  const steps: RouteStep[] = [];
  let inAmount = amountIn;
  for (let i = 0; i + 1 < hops.length; i++) {
    const s = step(venues[i] ?? 'relay', hops[i]!, hops[i + 1]!, inAmount, executions[i]);
    steps.push(s);
    inAmount = s.stepAmountOut;
  }
  const deliveryIn = inAmount;
  const executionCost = deliveryIn / 1000n;
  const delivery = { amountIn: deliveryIn, executionCost, amountOut: deliveryIn - executionCost };
  return { from: hops[0]!, to: hops.at(-1)!, amountIn, steps, delivery, estimatedAmountOut: delivery.amountOut };
}

/** Every entry shape of spec 2.4: quoted, failed and timed-out single hops; quoted, failed, timed-out attempts; both route kinds. */
export function fullAudit(best: PricedRoute, via: string): QuoteAudit {
  const direct = pricedRoute(best.amountIn, [best.from, best.to], ['across']);
  const first = step('kyberswap', best.from, via, best.amountIn);
  return {
    singleHop: [
      {
        venue: 'across', elapsedMs: 12.6, best: false, status: 'quoted', route: direct,
        costing: { venue: 'across', observedAmountIn: direct.steps[0]!.venueAmountIn, observedAmountOut: direct.steps[0]!.venueAmountOut },
      },
      { venue: 'mayan', elapsedMs: 40, best: false, status: 'failed', error: 'insufficient liquidity' },
      { venue: 'relay', elapsedMs: 1500, best: false, status: 'timed_out' },
    ],
    multiHop: {
      paths: 3,
      complete: false,
      hops: 2,
      attempts: [
        { round: 0, from: best.from, to: via, amountIn: best.amountIn, venue: 'kyberswap', elapsedMs: 8, status: 'quoted', step: first },
        { round: 0, from: best.from, to: via, amountIn: best.amountIn, venue: 'okx', elapsedMs: 9, status: 'failed', error: 'pair not served' },
        { round: 1, from: via, to: best.to, amountIn: first.stepAmountOut, venue: 'chainflip', elapsedMs: 1500, status: 'timed_out' },
      ],
      routes: [
        { assets: [best.from, via, best.to], venues: ['kyberswap', 'relay'], best: true, status: 'quoted', route: best },
        { assets: [best.from, via, best.to], venues: ['okx', 'chainflip'], best: false, status: 'failed', error: 'a hop timed out' },
      ],
      setupError: null,
    },
  };
}

/** The quote actor's answer to a request, as quote.machine builds it. */
export function cannedQuote(quoteId: string, request: QuoteRequest, route?: PricedRoute, audit?: QuoteAudit): Quote {
  const r = route ?? pricedRoute(request.amountIn, [request.from, request.to], [request.allowlist[0] ?? 'relay']);
  return {
    id: quoteId,
    request,
    route: r,
    refundCost: 1n,
    audit: request.includeCandidates ? (audit ?? fullAudit(r, r.from)) : null,
    quotedAt: QUOTED_AT,
    usdPrices: {},
    rounds: 1,
    expiresAt: QUOTED_AT + QUOTE_VALIDITY_MS,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The fake bus

export interface BusCall {
  ref: ActorRef;
  message: AnyCommand;
  opts: RequestOptions | undefined;
}

export type Answer = (ref: ActorRef, message: AnyCommand) => Promise<unknown> | unknown;

/** The core request a `quote.request` carries; any other command where a test expects one is the test's mistake. */
export function requestOf(message: AnyCommand): QuoteRequest {
  if (message.type !== 'quote.request') throw new Error(`expected quote.request, got ${message.type}`);
  return message.request;
}

/** Answers each quote.request with cannedQuote(); tests swap `answer` to refuse or fail. */
export class FakeBus implements Bus {
  readonly calls: BusCall[] = [];
  answer: Answer = (ref, message) => cannedQuote(ref.id, requestOf(message));

  // The real buses' typed side, so a command outside the protocol is refused here as it would be there.
  readonly request: Bus['request'] = typedRequest(async <R>(outgoing: OutgoingEnvelope, opts: RequestOptions) => {
    // Through the codec both ways, as over the in-process bus and NATS: bigints must survive, errors are rehydrated.
    const sent = roundTrip(outgoing);
    this.calls.push({ ref: sent.ref, message: sent.message, opts });
    const envelope = { ref: sent.ref, message: { ...sent.message }, requestId: opts.requestId };
    // `quote.order` is answered as the quote's host answers it (actors/placement.ts): its `quote.bind` and
    // `order.create` reach `answer` as calls of their own, recorded after it.
    const reply = roundTrip(await (sent.message.type === 'quote.order' ? this.placement(envelope) : this.answerOne(envelope)));
    if (!reply.ok) throw fromErrorData(reply.error);
    return reply.value as R;
  });

  private readonly answerOne: EnvelopeHandler = async ({ ref, message }) => {
    try {
      if (!isCommandOf(ref.kind, message)) throw new Error(`no command ${message.type} of ${ref.kind}`);
      return { ok: true, value: await this.answer(ref, message) };
    } catch (err) {
      return { ok: false, error: toErrorData(err) };
    }
  };

  private readonly placement = withOrderPlacement(
    runtimeOver((e) => {
      if (isCommandOf(e.ref.kind, e.message)) this.calls.push({ ref: e.ref, message: roundTrip(e.message), opts: { requestId: e.requestId } });
      return this.answerOne(e);
    }),
    { holds: () => true, bus: this },
  );

  async serve(): Promise<() => Promise<void>> {
    return async () => {};
  }
  async close(): Promise<void> {}

  /** The core QuoteRequest of the last call. */
  lastRequest(): QuoteRequest {
    const call = this.calls.at(-1);
    if (!call) throw new Error('the bus was not called');
    return requestOf(call.message);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The app on a port, with log capture and contract checks

export interface LogLine {
  level: number;
  req_id?: string;
  msg: string;
  [field: string]: unknown;
}

export interface Harness {
  bus: FakeBus;
  base: string;
  logs: LogLine[];
  ids: string[];
  /** fetch + contract check: status documented, body valid against the served document, X-Request-Id set. */
  call(path: string, init?: RequestInit & { json?: unknown }): Promise<Answered>;
  post(body: unknown, headers?: Record<string, string>): Promise<Answered>;
  /** POST /order. */
  postOrder(body: unknown, headers?: Record<string, string>): Promise<Answered>;
  /** GET /order/{id}; `id` goes into the path as given. */
  getOrder(id: string, headers?: Record<string, string>): Promise<Answered>;
  close(): Promise<void>;
}

export interface Answered {
  status: number;
  headers: Headers;
  text: string;
   
  body: any;
}

/** A debug logger whose JSON lines are collected, parsed, in `logs`. */
export function collectedLogs(): { logs: LogLine[]; logger: Logger } {
  const logs: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') logs.push(JSON.parse(line) as LogLine);
      cb();
    },
  });
  return { logs, logger: pino({ level: 'debug' }, sink) };
}

/** An app served on a free loopback port, and a `call` that checks every answer against the served OpenAPI document. */
export async function serveChecked(app: { callback(): Parameters<typeof createServer>[1] }): Promise<{ base: string; call: Harness['call']; close(): Promise<void> }> {
  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const contract = await Contract.load(base);
  const call: Harness['call'] = async (path, init = {}) => {
    const { json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (json !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
    const res = await fetch(base + path, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
    const text = await res.text();
    const answered: Answered = { status: res.status, headers: res.headers, text, body: undefined };
    if ((res.headers.get('content-type') ?? '').startsWith('application/json')) answered.body = JSON.parse(text);
    contract.check(path, (rest.method ?? 'GET').toUpperCase(), answered);
    return answered;
  };
  return {
    base,
    call,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

export async function startHarness(opts: { bodyLimitBytes?: number } = {}): Promise<Harness> {
  const bus = new FakeBus();
  const { logs, logger } = collectedLogs();
  const ids: string[] = [];
  const app = createApp({
    bus,
    logger,
    newId: () => {
      const next = randomUUID();
      ids.push(next);
      return next;
    },
    bodyLimitBytes: opts.bodyLimitBytes ?? 65536,
    clock: { now: () => QUOTED_AT + 1000 },
  });
  const { base, call, close } = await serveChecked(app);
  return {
    bus,
    base,
    logs,
    ids,
    call,
    post: (body, headers = {}) => call('/quote', { method: 'POST', json: body, headers }),
    postOrder: (body, headers = {}) => call('/order', { method: 'POST', json: body, headers }),
    getOrder: (orderId, headers = {}) => call(`/order/${orderId}`, { headers }),
    close,
  };
}

const addFormats: FormatsPlugin =
  (addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? (addFormatsModule as unknown as FormatsPlugin);

/** The served OpenAPI document, compiled with an ajv of the test's own (not the app's) so the check is independent. */
export class Contract {
  private readonly validators = new Map<string, ValidateFunction>();
  private constructor(
     
    readonly doc: any,
    private readonly ajv: Ajv2020,
  ) {}

  static async load(base: string): Promise<Contract> {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as Record<string, unknown>;
    // Not strict: the document root holds OpenAPI keywords (openapi, info, paths) that are not JSON Schema.
    const ajv = new Ajv2020({ strict: false, allowUnionTypes: true, discriminator: true, allErrors: true });
    addFormats(ajv);
    ajv.addFormat('uint64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) && n >= 0 });
    ajv.addSchema(doc, 'urn:test:family-a-openapi');
    return new Contract(doc, ajv);
  }

  /** The documented answer of (path, method, status); unknown paths and methods answer the `Error` envelope. */
  validator(path: string, method: string, status: number): ValidateFunction | 'text' {
    const template = this.template(path);
    const op = template === null ? undefined : this.doc.paths[template]?.[method.toLowerCase()];
    let pointer: string;
    if (op) {
      const response = op.responses[String(status)];
      expect(response, `${method} ${path} answered ${status}, which its OpenAPI operation does not document`).toBeDefined();
      const media = Object.keys(response.content)[0]!;
      if (media.startsWith('text/plain')) return 'text';
      pointer = `#/paths/${template!.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${status}/content/${media.replace(/\//g, '~1')}/schema`;
    } else {
      pointer = '#/components/schemas/Error';
    }
    const key = pointer;
    let v = this.validators.get(key);
    if (!v) {
      v = this.ajv.compile({ $ref: `urn:test:family-a-openapi${pointer}` });
      this.validators.set(key, v);
    }
    return v;
  }

  /** The document's path (`/order/{id}`) a request path (`/order/3f…`) falls under, or null; a parameter is one segment. */
  template(path: string): string | null {
    if (this.doc.paths[path]) return path;
    for (const template of Object.keys(this.doc.paths as Record<string, unknown>)) {
      if (!template.includes('{')) continue;
      const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
      if (new RegExp(`^${pattern}$`).test(path)) return template;
    }
    return null;
  }

  check(path: string, method: string, res: Answered): void {
    const requestId = res.headers.get('x-request-id');
    expect(requestId, 'every answer carries X-Request-Id').toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    if (method === 'HEAD' || method === 'OPTIONS') return;
    const v = this.validator(path.split('?')[0]!, method, res.status);
    if (v === 'text') return;
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const ok = v(res.body);
    expect(ok, `${method} ${path} ${res.status} body breaks the document: ${JSON.stringify(v.errors?.slice(0, 3))}`).toBe(true);
    if (res.status >= 400 && path === '/quote' && res.status !== 422) expect(Object.keys(res.body)).toEqual(['error']);
  }
}

/** The value of a decimal string in base units of an asset with `decimals` (to compare formatted and raw answers). */
export function decimalToBase(text: string, decimals: number): bigint {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) throw new Error(`not a decimal: ${text}`);
  const frac = m[2] ?? '';
  if (frac.length > decimals) throw new Error(`${text} has more than ${decimals} decimals`);
  return BigInt(m[1]!) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0');
}

/** A body every rule accepts: 1000 base.USDC into arbitrum.USDC. */
export function validBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  return { from: 'base.usdc', to: 'arbitrum.usdc', from_amount: '1000', return_full_route: true, ...over };
}
