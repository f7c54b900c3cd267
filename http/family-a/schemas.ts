// JSON Schemas (draft 2020-12, the dialect of OpenAPI 3.1) of Family A: the POST /quote and POST /order bodies and
// every response shape of spec 2.1–2.5 and 7. ajv validates requests with them and the OpenAPI document is built from them, so
// the served contract and the enforced one cannot drift apart. Refs use OpenAPI's `#/components/schemas/<Name>`.
import { VENUE_IDS } from '../../src/venues/types.js';
import { REFUND_REASONS } from '../../src/orders/money.js';

import { discriminated, type JsonSchema } from '../json-schema.js';

export type { JsonSchema };

export const SCHEMA_NAMES = [
  'AmountFormat', 'QuoteMode', 'VenueId', 'ChainAsset', 'Amount',
  'QuoteRequest', 'Quote', 'Delivery', 'Execution', 'RouteStep',
  'QuoteAudit', 'SingleHopCandidate', 'CostingAudit', 'MultiHopSearch', 'MultiHopAttempt', 'MultiHopRoute',
  'QuoteRefusal', 'OrderStatus', 'OrderRequest', 'Order', 'Error',
] as const;
export type SchemaName = (typeof SCHEMA_NAMES)[number];

export function ref(name: SchemaName): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

/** Amounts leave the service as strings: base units in `raw`, decimal asset units in `formatted`. */
const amount = (description: string): JsonSchema => ({ ...ref('Amount'), description });
/** Asset names leave the service written per `format`; their form is checked by the asset module, not a pattern. */
const assetName = (description: string): JsonSchema => ({ type: 'string', minLength: 1, description });
const elapsedMs: JsonSchema = { type: 'integer', minimum: 0, format: 'uint64', description: 'Milliseconds until the venue answered or was cut off.' };
const venueList = (description: string): JsonSchema => ({ type: 'array', items: ref('VenueId'), uniqueItems: true, description });
const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
const uuid = (description: string): JsonSchema => ({ type: 'string', format: 'uuid', description });
const instant = (description: string): JsonSchema => ({ type: 'string', format: 'date-time', description });
/** Addresses leave the service normalised (EIP-55 checksum on EVM, lower-case bech32 on Bitcoin). */
const address = (description: string): JsonSchema => ({ type: 'string', minLength: 1, description });

/** The `id` path parameter of GET /order/{id}; a malformed one is a 400, not a 404 (see the README's API notes). */
export const ORDER_ID_PARAMETER_SCHEMA: JsonSchema = {
  type: 'string',
  format: 'uuid',
  description: 'Order id from POST /order (case-insensitive; an `urn:uuid:` prefix is accepted). Not a uuid → 400.',
};

const schemas: Record<SchemaName, JsonSchema> = {
  AmountFormat: {
    type: 'string',
    enum: ['raw', 'formatted'],
    description: '`formatted`: decimal amounts in asset units and `<chain name>.<symbol>` names; `raw`: base-unit integers and canonical names.',
  },
  QuoteMode: {
    type: 'string',
    enum: ['fast', 'optimal'],
    description: '`optimal` gives each venue up to 10 seconds; `fast` cuts each off at 1.5 seconds.',
  },
  VenueId: { type: 'string', enum: [...VENUE_IDS] },
  ChainAsset: {
    type: 'string',
    description:
      '`<chain>.<asset>`, case-insensitive; chain is a name (ethereum, base, arbitrum, robinhood, ink, bitcoin, hyperliquid) ' +
      'or `evm:<chain id>`; asset is a symbol, a contract address, or `eth` / `btc` for the native coin.',
  },
  Amount: {
    type: 'string',
    pattern: '^[0-9]+(\\.[0-9]+)?$',
    description: 'Integer in base units when `format` is `raw`; decimal in the asset\'s own units when `formatted`.',
  },

  QuoteRequest: {
    type: 'object',
    description: 'Body of POST /quote. `venue_allowlist` and `venue_blocklist` cannot both be non-empty (400).',
    required: ['from', 'to', 'from_amount', 'return_full_route'],
    additionalProperties: false,
    properties: {
      from: { ...ref('ChainAsset'), description: 'Asset to sell.' },
      to: { ...ref('ChainAsset'), description: 'Asset to receive, same form as `from`; must differ from `from`.' },
      from_amount: {
        type: 'string',
        description: 'Decimal in asset units when `format` is `formatted`; integer in base units when `raw`. Must be greater than zero.',
      },
      return_full_route: { type: 'boolean', description: 'Include `route` in the response.' },
      format: { ...ref('AmountFormat'), default: 'formatted' },
      quote_mode: { ...ref('QuoteMode'), default: 'optimal' },
      include_candidates: { type: 'boolean', default: false, description: 'Include `quote_candidates` (large, for debugging).' },
      venue_allowlist: { ...venueList('Quote only these; empty means every venue. Duplicates are refused.'), default: [] },
      venue_blocklist: { ...venueList('Never quote these. Duplicates are refused.'), default: [] },
    },
  },

  Quote: {
    type: 'object',
    description:
      'Response of POST /quote. Inside `quote_candidates`, each candidate is written in this shape too: it carries the ' +
      'enclosing quote\'s `id` and `expires_at` (only the `best` candidate is what that id orders) and never has its own `quote_candidates`.',
    required: ['format', 'id', 'from', 'to', 'from_amount', 'estimated_amount_out', 'delivery', 'expires_at', 'venue_allowlist', 'venue_blocklist'],
    additionalProperties: false,
    properties: {
      format: ref('AmountFormat'),
      id: { type: 'string', format: 'uuid', description: 'Passed as `quote_id` when creating an order.' },
      from: assetName('Asset sold, written per `format`.'),
      to: assetName('Asset received, written per `format`.'),
      from_amount: amount('Amount quoted, echoed in `format`.'),
      estimated_amount_out: amount('Expected amount of `to` delivered to the order\'s `to_address`, after every venue and delivery cost.'),
      delivery: ref('Delivery'),
      expires_at: { type: 'string', format: 'date-time', description: 'Ten minutes after quoting; later, order creation refuses the quote.' },
      venue_allowlist: { type: 'array', items: ref('VenueId'), description: 'Echo of the request; empty when not restricted.' },
      venue_blocklist: { type: 'array', items: ref('VenueId'), description: 'Echo of the request; empty when none.' },
      route: {
        type: ['array', 'null'],
        items: ref('RouteStep'),
        description: 'Hop-by-hop steps in execution order; present only when `return_full_route` was set (absent otherwise, never null).',
      },
      quote_candidates: {
        ...nullable(ref('QuoteAudit')),
        description: 'Present only when `include_candidates` was set.',
      },
    },
  },
  Delivery: {
    type: 'object',
    description: 'Final transfer into `to_address`, in the `to` asset.',
    required: ['amount_in', 'execution_cost', 'amount_out'],
    additionalProperties: false,
    properties: {
      amount_in: amount('Amount of `to` handed to delivery; equal to the last step\'s `step_amount_out`.'),
      execution_cost: amount('Cost of the transfer into `to_address`, paid out of `amount_in`.'),
      amount_out: amount('Amount arriving at `to_address`; equal to `estimated_amount_out`.'),
    },
  },
  Execution: discriminated(
    'mode',
    {},
    [],
    {
      bitcoin: { description: 'Runs on Bitcoin.' },
      evm: {
        properties: { chain: { type: 'integer', format: 'int32', minimum: 1, description: 'EVM chain id.' } },
        required: ['chain'],
        description: 'Runs on an EVM chain, gas paid by the vault.',
      },
      evm_gas_desk: {
        properties: { chain: { type: 'integer', format: 'int32', minimum: 1, description: 'EVM chain id.' } },
        required: ['chain'],
        description: 'Runs on an EVM chain, gas advanced by the router.',
      },
      hyperliquid: { description: 'Runs on HyperCore.' },
    },
    'How a step runs, discriminated by `mode`.',
  ),
  RouteStep: {
    type: 'object',
    required: ['execution', 'from', 'to', 'step_amount_in', 'step_amount_out', 'venue', 'venue_amount_in', 'venue_amount_out'],
    additionalProperties: false,
    properties: {
      execution: ref('Execution'),
      from: assetName('Asset entering the step, per `format`.'),
      to: assetName('Asset leaving the step, per `format`.'),
      step_amount_in: amount('Amount entering the step (in `from`): `from_amount` for the first step, else the previous step\'s `step_amount_out`.'),
      step_amount_out: amount('Amount leaving the step (in `to`), handed to the next step or to delivery.'),
      venue: ref('VenueId'),
      venue_amount_in: amount('Amount sent to the venue (in `from`): `step_amount_in` less this step\'s execution cost.'),
      venue_amount_out: amount('The venue\'s output for `venue_amount_in` (in `to`).'),
    },
  },

  QuoteAudit: {
    type: 'object',
    description: 'Debug detail of how the quote was found.',
    required: ['single_hop', 'multi_hop'],
    additionalProperties: false,
    properties: {
      single_hop: { type: 'array', items: ref('SingleHopCandidate'), description: 'One entry per venue asked to quote the pair directly.' },
      multi_hop: ref('MultiHopSearch'),
    },
  },
  SingleHopCandidate: discriminated(
    'status',
    {
      venue: ref('VenueId'),
      elapsed_ms: elapsedMs,
      best: { type: 'boolean', description: 'Whether this candidate is the quote returned.' },
    },
    ['venue', 'elapsed_ms', 'best'],
    {
      quoted: {
        properties: { quote: { ...ref('Quote'), description: 'The priced route, in the shape of a Quote.' }, costing_audit: ref('CostingAudit') },
        required: ['quote', 'costing_audit'],
        description: 'The venue quoted.',
      },
      failed: { properties: { error: { type: 'string' } }, required: ['error'], description: 'The venue answered with an error.' },
      timed_out: { description: 'The venue did not answer within the `quote_mode` deadline.' },
    },
    'A venue asked to quote the pair directly.',
  ),
  CostingAudit: {
    type: 'object',
    description: 'The venue\'s raw answer, before execution costs.',
    required: ['venue', 'observed_amount_in', 'observed_amount_out'],
    additionalProperties: false,
    properties: {
      venue: ref('VenueId'),
      observed_amount_in: amount('Amount the venue was asked to price, in `from`.'),
      observed_amount_out: amount('Amount the venue said it would return, in `to`.'),
    },
  },
  MultiHopSearch: {
    type: 'object',
    description: 'Graph search over intermediate assets. `hops` and `setup_error` are always written (null when not applicable).',
    required: ['paths', 'complete', 'attempts', 'routes'],
    additionalProperties: false,
    properties: {
      paths: { type: 'integer', minimum: 0, description: 'Number of candidate paths at the hop count tried.' },
      complete: { type: 'boolean', description: 'Whether every path was enumerated; false when the search hit its limit.' },
      hops: { type: ['integer', 'null'], minimum: 0, description: 'Venue steps in the routes tried; null when no path exists.' },
      attempts: { type: 'array', items: ref('MultiHopAttempt') },
      routes: { type: 'array', items: ref('MultiHopRoute') },
      setup_error: { type: ['string', 'null'], description: 'Why the search could not start.' },
    },
  },
  MultiHopAttempt: discriminated(
    'status',
    {
      round: { type: 'integer', minimum: 0, description: 'Position of the hop, counted from zero.' },
      from: assetName('Per `format`.'),
      to: assetName('Per `format`.'),
      amount_in: amount('In `from`.'),
      venue: ref('VenueId'),
      elapsed_ms: elapsedMs,
    },
    ['round', 'from', 'to', 'amount_in', 'venue', 'elapsed_ms'],
    {
      quoted: { properties: { step: ref('RouteStep') }, required: ['step'], description: 'The venue quoted the hop.' },
      failed: { properties: { error: { type: 'string' } }, required: ['error'], description: 'The venue answered with an error.' },
      timed_out: { description: 'The venue did not answer within the `quote_mode` deadline.' },
    },
    'A venue quote requested while walking the paths.',
  ),
  MultiHopRoute: discriminated(
    'status',
    {
      assets: { type: 'array', items: assetName('Per `format`.'), description: 'Assets along the path from `from` to `to`.' },
      venues: { type: 'array', items: ref('VenueId'), description: 'Venue of each hop, in order.' },
      best: { type: 'boolean', description: 'Whether this route is the quote returned.' },
    },
    ['assets', 'venues', 'best'],
    {
      quoted: { properties: { quote: { ...ref('Quote'), description: 'The priced route, in the shape of a Quote.' } }, required: ['quote'], description: 'The path produced a quote.' },
      failed: { properties: { error: { type: 'string' } }, required: ['error'], description: 'The path produced no quote.' },
    },
    'A complete path and whether it produced a quote.',
  ),

  QuoteRefusal: {
    type: 'object',
    description: 'No venue could quote the pair and amount (422).',
    required: ['error'],
    additionalProperties: false,
    properties: {
      error: { type: 'string', minLength: 1 },
      quote_candidates: { ...nullable(ref('QuoteAudit')), description: 'Present only when `include_candidates` was set.' },
    },
  },
  OrderStatus: {
    type: 'string',
    enum: ['awaiting_deposit', 'funded', 'underfunded', 'expired', 'executing', 'delivered', 'stalled', 'frozen'],
    description: 'Stop polling at `delivered` or `expired`; `stalled` and `frozen` need an operator.',
  },
  OrderRequest: {
    type: 'object',
    description:
      'Body of POST /order. Repeating it with the same `quote_id` and the same addresses (compared once normalised) ' +
      'returns the order already created; other addresses for a quote already used → 409.',
    required: ['quote_id', 'to_address'],
    additionalProperties: false,
    properties: {
      quote_id: uuid('`id` from POST /quote; not expired (410); unknown → 400. Case-insensitive; an `urn:uuid:` prefix is accepted.'),
      to_address: { type: 'string', description: 'Address on the `to` asset\'s chain, validated against that chain\'s address format (400).' },
      refund_address: {
        type: ['string', 'null'],
        description:
          'Address on the `from` asset\'s chain, validated against that chain\'s format (400). Absent or null: the refund goes to ' +
          'the deposit\'s sender; absent and null are the same request.',
      },
    },
  },
  Order: {
    type: 'object',
    description:
      'Response of POST /order (201) and GET /order/{id} (200). Amounts and asset names are written per `format`, inherited ' +
      'from the quote. `amount_out` is absent until the order is delivered (never null here).',
    required: [
      'id', 'quote_id', 'vault_id', 'format', 'from', 'to', 'from_amount', 'deposit_address', 'to_address', 'refund_address',
      'venue_allowlist', 'venue_blocklist', 'status', 'deposit_deadline', 'created_at',
    ],
    additionalProperties: false,
    properties: {
      id: uuid('Identifier used in GET /order/{id}.'),
      quote_id: uuid('Quote the order was created from.'),
      vault_id: uuid('Internal identifier of the vault holding the deposit address.'),
      format: { ...ref('AmountFormat'), description: 'Inherited from the quote.' },
      from: assetName('Asset to deposit, per `format`.'),
      to: assetName('Asset delivered, per `format`.'),
      from_amount: amount('Amount of `from` to deposit, exactly as quoted.'),
      deposit_address: address('Fresh address on the `from` chain to send `from_amount` to.'),
      to_address: address('Address on the `to` chain receiving the output.'),
      refund_address: {
        type: ['string', 'null'],
        minLength: 1,
        description: 'Address on the `from` chain receiving a refund; null when none was given, then the deposit\'s sender once the deposit is seen.',
      },
      venue_allowlist: { type: 'array', items: ref('VenueId'), description: 'Inherited restriction; empty when none.' },
      venue_blocklist: { type: 'array', items: ref('VenueId'), description: 'Inherited exclusion; empty when none.' },
      status: ref('OrderStatus'),
      deposit_deadline: instant('Seven days after creation; later, deposits are no longer watched and the order expires.'),
      created_at: instant('Creation time.'),
      amount_out: {
        ...nullable(ref('Amount')),
        description: 'Amount of `to` delivered to `to_address`, per `format`; absent until delivered (this service never writes null).',
      },
      refunds: {
        type: 'array',
        description:
          'Addition to the spec: every refund paid, oldest first; absent while there is none. Reasons: `underfunded` (what arrived ' +
          'by the deadline), `excess` (what exceeded `from_amount`), `late_deposit` (arrived after execution started or the order ' +
          'ended), `cancelled` (the order was cancelled before executing), `unwind` (a stalled or frozen order was unwound). Each ' +
          'deposit\'s unspent part goes to `refund_address` when one was given, else back to that deposit\'s own sender.',
        items: {
          type: 'object',
          required: ['amount', 'reason', 'to_address', 'tx_id'],
          additionalProperties: false,
          properties: {
            amount: amount('What reached `to_address`, in `from`, after the refund transfer\'s own cost.'),
            reason: { type: 'string', enum: [...REFUND_REASONS] },
            to_address: { type: 'string', minLength: 1, description: 'Address on the `from` chain the refund was sent to.' },
            tx_id: { type: ['string', 'null'], minLength: 1, description: 'Transaction of the refund; null when the amount did not exceed the refund\'s cost, which the router kept.' },
          },
        },
      },
    },
  },
  Error: {
    type: 'object',
    description: 'Every other non-success answer: one sentence on what went wrong (5xx: only that something failed, with the request id).',
    required: ['error'],
    additionalProperties: false,
    properties: { error: { type: 'string', minLength: 1 } },
  },
};

/** The components of the OpenAPI document; refs between them are `#/components/schemas/<Name>`. */
export const FAMILY_A_SCHEMAS: Readonly<Record<SchemaName, JsonSchema>> = schemas;
