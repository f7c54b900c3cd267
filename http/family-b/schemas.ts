// JSON Schemas (draft 2020-12, the dialect of OpenAPI 3.1) of Family B: request bodies and every answer shape of spec
// 2.6 and 7. ajv validates requests with them and the OpenAPI document is built from them. Refs are
// `#/components/schemas/<Name>`.
import { B_ERROR_CODES } from './errors.js';
import { B_ORDER_STATUSES, B_STATUS_MEANINGS } from './statuses.js';

import { discriminated, type JsonSchema } from '../json-schema.js';

export type { JsonSchema };

export const B_SCHEMA_NAMES = [
  'AmountFormat', 'OrderType', 'RefundMode', 'Amount', 'QuoteRequest', 'Leg', 'Fee', 'QuoteCandidate', 'Quote',
  'OrderRequest', 'CancelRequest', 'OrderStatus', 'Order', 'Error',
] as const;
export type BSchemaName = (typeof B_SCHEMA_NAMES)[number];

export function ref(name: BSchemaName): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

const amount = (description: string): JsonSchema => ({ ...ref('Amount'), description });
const assetName = (description: string): JsonSchema => ({ type: 'string', minLength: 1, description });
const text = (min: number, max: number, description: string): JsonSchema => ({ type: 'string', minLength: min, maxLength: max, description });
const instant = (description: string): JsonSchema => ({ type: 'string', format: 'date-time', description });

/** A closed object per variant of `tag`, as in Family A's schemas (additionalProperties cannot see through oneOf). */

const quoteShared: Record<string, JsonSchema> = {
  quoteId: { type: 'string', format: 'uuid', description: 'Passed as `quoteId` to POST /order/market. A `market` quote has a version-8 uuid.' },
  from: assetName('Asset sold, per `amountFormat`.'),
  to: assetName('Asset received, per `amountFormat`.'),
  expiry: instant('Ten minutes after quoting; later, POST /order/market answers 410 `quote_expired`.'),
  estimatedOut: amount('Expected amount of `to` arriving at `toAddress`, after every venue, execution and delivery cost.'),
  amountFormat: ref('AmountFormat'),
  quoteCandidates: {
    type: 'array',
    items: ref('QuoteCandidate'),
    description: 'Present only when `includeQuoteCandidates` was true: one record per single-hop venue asked and per multi-hop route tried.',
  },
};

const orderShared: Record<string, JsonSchema> = {
  orderId: { type: 'string', format: 'uuid', description: 'Order id (GET /order/{orderId}; also readable through Family A).' },
  orderAddress: text(1, 128, 'Deposit address on the `from` chain.'),
  amountToSend: amount('Exactly the quoted input: send this to `orderAddress`.'),
  quoteId: { type: 'string', format: 'uuid', description: 'Source quote.' },
  from: assetName('Asset to deposit, per `amountFormat`.'),
  to: assetName('Asset delivered, per `amountFormat`.'),
  status: ref('OrderStatus'),
  expiry: instant('Deposit deadline: seven days after creation; nothing arriving by then → `expired`.'),
  amountFormat: ref('AmountFormat'),
  refundMode: { anyOf: [ref('RefundMode'), { type: 'null' }], description: 'How a cancel is authorised; null for an order made through Family A.' },
  refundAuthorizer: { type: ['string', 'null'], description: 'EVM address whose EIP-712 signature authorises a cancel (`evmSignature`); null in `token` mode.' },
  refundToken: {
    type: 'string',
    pattern: '^rgt_[A-Za-z0-9_-]{43}$',
    description: 'Only in creation answers (first and replayed) of `token` orders: the bearer token POST /order/{orderId}/cancel takes. Keep it secret; it is never stored.',
  },
  fromAddress: { type: ['string', 'null'], description: 'The sender the client named; null for an order made through Family A.' },
  toAddress: text(1, 128, 'Address on the `to` chain receiving the output (normalised).'),
  refundAddress: { type: ['string', 'null'], description: 'Address on the `from` chain receiving refunds (default `fromAddress`).' },
  cancelAfter: { anyOf: [instant('Instant the order is cancelled at if its deposit is not confirmed in full by then.'), { type: 'null' }] },
  createdAt: instant('Creation time.'),
  statusReason: {
    type: ['string', 'null'],
    description: 'Why the order is `failed`, or why it is being or was refunded (a cancel, the deadline, an unwind, the slippage guard: a route re-priced below `minOut`); null on the plain path.',
  },
  amountOut: amount('Amount of `to` delivered; absent until `completed`.'),
};
const orderRequired = [
  'orderId', 'orderAddress', 'amountToSend', 'quoteId', 'from', 'to', 'status', 'expiry', 'amountFormat', 'refundMode',
  'refundAuthorizer', 'fromAddress', 'toAddress', 'refundAddress', 'cancelAfter', 'createdAt', 'statusReason',
];

const schemas: Record<BSchemaName, JsonSchema> = {
  AmountFormat: {
    type: 'string',
    enum: ['readable', 'raw'],
    description: '`readable` (default): decimal amounts in asset units and `<chain>.<symbol>` names; `raw`: base-unit integers and canonical names.',
  },
  OrderType: { type: 'string', enum: ['market_order', 'market'], description: 'Shape of the quote and of its orders.' },
  RefundMode: {
    type: 'string',
    enum: ['evmSignature', 'token'],
    description: '`evmSignature` (default): a cancel is signed (EIP-712) by `refundAuthorizer`; `token`: a cancel presents `refundToken`.',
  },
  Amount: { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$', description: 'Base units when `amountFormat` is `raw`; decimal asset units when `readable`.' },

  QuoteRequest: {
    type: 'object',
    description: 'Body of POST /quote.',
    required: ['from', 'to', 'fromAmount'],
    additionalProperties: false,
    properties: {
      from: text(1, 96, 'Asset to sell: `<chain>.<asset>` as Family A accepts it (chain name or `evm:<id>`; symbol, address, `eth`/`btc`).'),
      to: text(1, 96, 'Asset to receive, same form; must differ from `from`.'),
      fromAmount: text(1, 96, 'Decimal in asset units (`readable`) or integer base units (`raw`); greater than zero.'),
      amountFormat: { ...ref('AmountFormat'), default: 'readable' },
      orderType: { ...ref('OrderType'), default: 'market_order' },
      returnFullRoute: { type: 'boolean', default: true, description: 'Include `route` (`market_order` quotes).' },
      includeQuoteCandidates: { type: 'boolean', default: false, description: 'Include `quoteCandidates` (debugging).' },
    },
  },
  Leg: {
    type: 'object',
    description:
      'One venue step. `amountIn` enters the leg; `inputRetained` (its execution cost) is kept from it, so `providerAmountIn` ' +
      '= amountIn − inputRetained; the venue returns `providerAmountOut`; `outputRetained` is 0 except on the last leg, ' +
      'where it is the delivery cost, so the last `amountOut` is `estimatedOut`.',
    required: ['venue', 'from', 'to', 'amountIn', 'providerAmountIn', 'providerAmountOut', 'amountOut', 'paymasterReimbursement'],
    additionalProperties: false,
    properties: {
      venue: { type: 'string', minLength: 1 },
      from: assetName('Asset entering the leg.'),
      to: assetName('Asset leaving the leg.'),
      amountIn: amount('In `from`.'),
      providerAmountIn: amount('Sent to the venue, in `from`.'),
      providerAmountOut: amount('The venue\'s output, in `to`.'),
      amountOut: amount('Leaving the leg, in `to`.'),
      paymasterReimbursement: {
        type: 'object',
        required: ['inputRetained', 'outputRetained'],
        additionalProperties: false,
        properties: { inputRetained: amount('In `from`.'), outputRetained: amount('In `to`.') },
      },
    },
  },
  Fee: {
    type: 'object',
    required: ['kind', 'label', 'asset', 'amount', 'amountRaw'],
    additionalProperties: false,
    properties: {
      kind: { type: 'string', enum: ['network', 'gas_desk', 'delivery'], description: '`network`: gas or chain fee paid from the asset; `gas_desk`: gas the router advanced, repaid in the token; `delivery`: the final transfer.' },
      label: { type: 'string', minLength: 1 },
      asset: assetName('Asset the fee is paid in, per `amountFormat`.'),
      amount: amount('Per `amountFormat`.'),
      amountRaw: { type: 'string', pattern: '^[0-9]+$', description: 'Base units, always.' },
    },
  },
  QuoteCandidate: {
    type: 'object',
    required: ['family', 'status', 'venues', 'latency_ms'],
    additionalProperties: false,
    properties: {
      family: { type: 'string', enum: ['single_hop', 'multi_hop'] },
      status: { type: 'string', enum: ['quoted', 'failed', 'timed_out'] },
      venues: { type: 'array', items: { type: 'string' } },
      latency_ms: { type: 'integer', minimum: 0 },
      raw_quote: { type: 'array', items: ref('Leg'), description: 'Only for quoted candidates: its priced route as legs.' },
    },
  },
  Quote: discriminated(
    'orderType',
    quoteShared,
    ['quoteId', 'from', 'to', 'expiry', 'estimatedOut', 'amountFormat'],
    {
      market_order: {
        properties: {
          expectedSwapTimeMs: { type: 'integer', minimum: 0, description: 'Source confirmations + typical venue times + one destination block.' },
          route: { type: 'array', items: ref('Leg'), description: 'Present when `returnFullRoute` is true (the default).' },
        },
        required: ['expectedSwapTimeMs'],
        description: 'First shape.',
      },
      market: {
        properties: {
          venues: { type: 'array', items: { type: 'string' }, description: 'Venue of each step, in order.' },
          fees: { type: 'array', items: ref('Fee'), description: 'One per cost the route pays: each step\'s execution cost, then delivery. Optional in this shape (as the gateway documents it); this service always sends it.' },
        },
        required: ['venues'],
        description: 'Second shape.',
      },
    },
    'Response of POST /quote.',
  ),
  OrderRequest: {
    type: 'object',
    description: 'Body of POST /order/market.',
    required: ['quoteId', 'fromAddress', 'toAddress'],
    additionalProperties: false,
    properties: {
      quoteId: { type: 'string', format: 'uuid', description: 'Unknown → 404; expired → 410.' },
      fromAddress: text(1, 128, 'Sender on the `from` chain (validated for it).'),
      toAddress: text(1, 128, 'Receiver on the `to` chain (validated for it).'),
      refundAuthorizer: {
        anyOf: [text(1, 128, 'EVM address.'), { type: 'null' }],
        description: 'Required (an EVM address) in `evmSignature` mode; absent or null in `token` mode.',
      },
      refundAddress: text(1, 128, 'Refunds go here (on the `from` chain); default `fromAddress`.'),
      integrator: text(1, 128, 'Attribution.'),
      idempotencyKey: { type: 'string', minLength: 16, maxLength: 128, pattern: '^[A-Za-z0-9._:-]+$', description: 'Same key and body → the same order (201, then 200); same key, other body → 409.' },
      cancelAfter: instant('`market` quotes only: cancel at this instant unless the deposit is confirmed in full by then. In the future and before the deposit deadline.'),
      refundMode: { ...ref('RefundMode'), default: 'evmSignature' },
      amountFormat: { ...ref('AmountFormat'), default: 'readable' },
    },
  },
  CancelRequest: {
    type: 'object',
    description: 'Body of POST /order/{orderId}/cancel: exactly one of `refundToken`, or `refundSignature` with `refundSignatureDeadline`.',
    additionalProperties: false,
    properties: {
      refundToken: text(1, 128, 'The order\'s refund token (`token` mode).'),
      refundSignature: { type: 'string', pattern: '^0x[a-fA-F0-9]+$', maxLength: 1024, description: 'EIP-712 signature of CancelOrder by `refundAuthorizer`.' },
      refundSignatureDeadline: { type: 'integer', minimum: 0, description: 'Unix seconds; not past and at most 10 minutes ahead.' },
      amountFormat: { ...ref('AmountFormat'), default: 'readable' },
    },
  },
  OrderStatus: {
    type: 'string',
    enum: [...B_ORDER_STATUSES],
    description: B_ORDER_STATUSES.map((s) => `\`${s}\`: ${B_STATUS_MEANINGS[s]}`).join('; ') + '.',
  },
  Order: discriminated(
    'orderType',
    orderShared,
    orderRequired,
    {
      market_order: {
        properties: {
          estimatedOut: amount('The quote\'s estimate.'),
          route: { type: 'array', items: ref('Leg') },
          expectedSwapTimeMs: { type: 'integer', minimum: 0 },
          maxSlippage: { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$', description: 'Addition to the first shape: the slippage guard binds every order. Fraction of `estimatedOut` the order may lose ("0.01" is 1 %, ROUTER_MAX_SLIPPAGE_BPS).' },
          minOut: amount('Addition to the first shape: estimatedOut × (1 − maxSlippage), rounded down; a route re-priced below it refunds (reason `slippage`).'),
        },
        required: ['estimatedOut', 'route', 'expectedSwapTimeMs', 'maxSlippage', 'minOut'],
        description: 'First shape.',
      },
      market: {
        properties: {
          expectedOut: amount('The quote\'s estimate.'),
          maxSlippage: { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$', description: 'Fraction of `expectedOut` the order may lose: "0.01" is 1 %.' },
          minOut: amount('expectedOut × (1 − maxSlippage), rounded down: a route re-priced below it refunds (reason `slippage`).'),
          maxIn: amount('The exact input, `amountToSend`.'),
          expectedSlippage: { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$', description: 'Always "0": `expectedOut` is the expectation.' },
        },
        // minOut, maxIn and expectedSlippage are optional in this shape (as the gateway documents it); this service
        // always sends them.
        required: ['expectedOut', 'maxSlippage'],
        description: 'Second shape.',
      },
    },
    'Response of POST /order/market, GET /order/{orderId} and POST /order/{orderId}/cancel.',
  ),
  Error: {
    type: 'object',
    description: 'Every non-success answer.',
    required: ['error'],
    additionalProperties: false,
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message', 'details'],
        additionalProperties: false,
        properties: {
          code: { type: 'string', enum: [...B_ERROR_CODES] },
          message: { type: 'string', minLength: 1 },
          details: {
            description: 'Any JSON value; here always an object: `invalid_request`: `issues` [{path, message}]; `conflict` of a cancel: `status`; 5xx: `requestId`; else {}.',
          },
        },
      },
    },
  },
};

export const FAMILY_B_SCHEMAS: Readonly<Record<BSchemaName, JsonSchema>> = schemas;
