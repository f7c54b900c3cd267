// The OpenAPI 3.1 document of Family C (typed currencies), served at GET /openapi.json. Its schemas are the objects
// ajv validates requests with (schemas.ts), so what is published is what is enforced.
import { LIST_STATUSES, LIST_STATUS_MEANINGS } from '../../src/orders/summary.js';
import { healthAndOpenApiPaths } from '../json-schema.js';
import {
  bodyErrorAnswers, COMMON_ERROR_ANSWERS as commonErrors, envelopeExample as err, issueExample as issue, jsonAnswer, REQUEST_ID_HEADER as requestIdHeader, REQUEST_ID_PARAM as requestIdParam,
} from '../openapi-envelope.js';
import { DEFAULT_PAGE, MAX_PAGE } from './orders.js';
import { FAMILY_C_SCHEMAS, ref, type CSchemaName, type JsonSchema } from './schemas.js';

export const FAMILY_C_VERSION = '1.0.0';

const json = (description: string, schema: CSchemaName, example?: unknown): JsonSchema => jsonAnswer(description, ref(schema), example);

const bodyErrors = bodyErrorAnswers(
  'Malformed JSON, schema or rule broken (`invalid_request`, `details.issues` [{path, message}] naming the field).',
  issue('from.token.decimals', '`from.token.decimals` is 18, but USDC on base has 6 decimals.'),
);

const BASE_USDC = { chain: { kind: 'EVM', chainId: 8453 }, token: { kind: 'TOKEN', address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', decimals: 6 } };
const ARB_USDC = { chain: { kind: 'EVM', chainId: 42161 }, token: { kind: 'TOKEN', address: '0xaf88d065e77c8cc2239327c5edb3a432268e5831', decimals: 6 } };
const fee = (amount: string, currency: unknown, usd: number) => ({ amount, currency, usd });
const FEES_EXAMPLE = {
  totalUsd: 0.54,
  preswap: fee('20000', BASE_USDC, 0.02),
  postswap: fee('10000', ARB_USDC, 0.01),
  rift: { network: fee('0', BASE_USDC, 0), liquidity: fee('510000', ARB_USDC, 0.51), protocol: fee('0', ARB_USDC, 0) },
};
const QUOTE_ID = '0b6f8c1e-2f4a-4c1d-9a57-6d1e0e3b9f10';
const QUOTE_EXAMPLE = {
  mode: 'exact_input', id: QUOTE_ID, fees: FEES_EXAMPLE, expiresAt: '2026-11-22T10:10:00.000Z',
  from: { currency: BASE_USDC, expected: '1000000000' },
  to: { currency: ARB_USDC, expected: '999490000', minimum: '994492550' },
};
const ORDER_ID = 'cfe092b2-a61f-4973-9179-7b09133fe1a1';
const DEPOSIT = '0x3ce2b04488b817c848a6d7482f593df2c5d2bba0';
const SWAP_EXAMPLE = {
  orderId: ORDER_ID,
  quote: QUOTE_EXAMPLE,
  executionSteps: [
    {
      id: `${ORDER_ID}:fund`, action: 'evm_call', kind: 'transfer_erc20', chainId: 8453, to: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
      calldata: `0xa9059cbb000000000000000000000000${DEPOSIT.slice(2)}000000000000000000000000000000000000000000000000000000003b9aca00`,
      value: '0', tokenAddress: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', amount: '1000000000',
    },
  ],
};
const ITEM_EXAMPLE = {
  orderId: ORDER_ID, routeType: 'direct', orderType: 'market', provider: 'relay', path: ['relay'], status: 'settled',
  senderAddress: '0x000000000000000000000000000000000000dEaD', destinationAddress: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
  refundAddress: '0x000000000000000000000000000000000000dEaD', otcSwapId: null, swapperSwapId: null, cowOrderUid: null,
  sellCurrency: BASE_USDC, buyCurrency: ARB_USDC, quoteMode: 'exact_input', quotedSellAmount: '1000000000', quotedBuyAmount: '999490000',
  quotedMinimumBuyAmount: '994492550', quotedMaximumSellAmount: null, executedSellAmount: '1000000000', executedBuyAmount: '999490000',
  executedFeeAmount: '30000', depositTxHash: '0x5a1f…', payoutTxHash: '0x77c0…', refundTxHash: null,
  rawRouterJson: { from: 'evm:8453.0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', to: 'evm:42161.0xaf88d065e77c8cc2239327c5edb3a432268e5831', amountIn: '1000000000', steps: [], delivery: {}, estimatedAmountOut: '999490000' },
  rawExternalDEXOrderJson: null, rawOtcJson: null, rawSwapperJson: null, externalDexStatus: null, teeOtcStatus: null, teeSwapperStatus: null,
  createdAt: '2026-11-22T10:00:01.000Z', updatedAt: '2026-11-22T10:00:31.000Z', lastSourceUpdateAt: '2026-11-22T10:00:12.000Z', terminalAt: '2026-11-22T10:00:31.000Z',
};

const STATUS_TEXT = LIST_STATUSES.map((s) => `\`${s}\`: ${LIST_STATUS_MEANINGS[s]}`).join('; ');
const query = (name: string, description: string, schema: JsonSchema) => ({ name, in: 'query', required: false, description, schema });
const addressRule =
  'Exact match. The value is normalised first: a valid EVM address (also HyperCore accounts) to its EIP-55 checksummed form, ' +
  'a valid Bitcoin mainnet address to its normal form (bech32 lower case); anything else → 400 naming the parameter.';

export function familyCOpenApi(): JsonSchema {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Swap router: Family C (typed currencies)',
      version: FAMILY_C_VERSION,
      description:
        'Typed currencies and base-unit amounts over the same quotes and orders as Families A and B (an order made here is ' +
        'readable there). Every non-2xx answer is `{error: {code, message, details}}` with the codes and statuses of Family B: ' +
        'invalid_request 400, not_found 404, method_not_allowed 405, conflict 409, quote_expired 410, payload_too_large 413, ' +
        'unsupported_media_type 415, insufficient_liquidity 422, rate_limited 429, internal 500, unavailable 503. Quotes are priced in `fast` mode ' +
        '(1.5 s per venue). USD values of fees use the router\'s USD reference prices (its price oracle), stored with each quote.',
    },
    servers: [{ url: '{alt_url}', variables: { alt_url: { default: 'http://localhost:8082' } } }],
    paths: {
      '/quote': {
        post: {
          operationId: 'createQuote',
          summary: 'Prices a swap of an exact input or for an exact output.',
          description:
            'EXACT_INPUT sells `amount`; EXACT_OUTPUT finds the smallest input that delivers `amount` (the router\'s exact-output ' +
            'search), and the order then delivers exactly that. `slippageBps` sets `to.minimum` or `from.maximum`. Currencies ' +
            'unknown to the registry, or with the wrong decimals → 400 naming the field.',
          parameters: [requestIdParam],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref('QuoteRequest'), example: { type: 'EXACT_INPUT', from: BASE_USDC, to: ARB_USDC, amount: '1000000000', slippageBps: 50 } } },
          },
          responses: {
            '200': json('The quote.', 'Quote', QUOTE_EXAMPLE),
            ...bodyErrors,
            '422': json('No venue could quote the pair and amount (`insufficient_liquidity`).', 'Error', err('insufficient_liquidity', 'No venue could quote the pair and amount.')),
            ...commonErrors,
          },
        },
      },
      '/order/market': {
        post: {
          operationId: 'createSwap',
          summary: 'Creates the order of a quote and answers the steps that fund it.',
          description:
            'The quote must come from POST /quote of Family C (one made through Family A or B → 404, as it records no ' +
            '`slippageBps`). Checks, in order: body (400), the quote (404), `destinationAddress` for the `to` chain, ' +
            '`refundAddress` and `senderAddress` for the `from` chain, `senderAddress` present when the `from` chain is an EVM ' +
            'chain, a refund not eating the whole input (400), then the binding (410 expired, 409 bound to other addresses). ' +
            'The first creation answers 201; the same body again answers 200 with the same order; another body for the same ' +
            'quote → 409. Exact input: the order takes exactly `from.expected` and refunds rather than deliver below ' +
            '`to.minimum`. Exact output: it accepts deposits up to `from.maximum`, delivers exactly `to.expected` (what the ' +
            'route returns above it is kept as a delivery cost) and refunds, after delivering, the input the route did not need.',
          parameters: [requestIdParam],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: ref('OrderRequest'),
                example: { id: QUOTE_ID, destinationAddress: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94', refundAddress: '0x000000000000000000000000000000000000dEaD', senderAddress: '0x000000000000000000000000000000000000dEaD' },
              },
            },
          },
          responses: {
            '201': json('The order was created.', 'Swap', SWAP_EXAMPLE),
            '200': json('The same request again: the order it created.', 'Swap', SWAP_EXAMPLE),
            ...bodyErrors,
            '409': json('The quote is already bound to an order with other addresses or terms (`conflict`).', 'Error', err('conflict', `\`id\` ${QUOTE_ID} is already bound to an order with other terms.`)),
            '410': json('The quote has expired (`quote_expired`).', 'Error', err('quote_expired', `Quote ${QUOTE_ID} expired at 2026-11-22T10:10:00.000Z.`)),
            ...commonErrors,
            '404': json('No such quote, or a quote made through another family (`not_found`); or no such path.', 'Error', err('not_found', `\`id\` ${QUOTE_ID} is not a known quote.`)),
          },
        },
      },
      '/orders': {
        get: {
          operationId: 'listOrders',
          summary: 'Lists orders, newest first, one page at a time.',
          description:
            'Every order of the router is listed (made through any family). Filters combine with AND. Unknown or repeated ' +
            'query parameters → 400 (a misspelt filter must not silently widen the list). `orderType=limit` answers an empty ' +
            'page: limit orders are not offered. Pages are ordered by creation time then id, both descending, and resumed ' +
            'after the last item of the previous page, so orders created meanwhile do not shift a walk.',
          parameters: [
            requestIdParam,
            query('sender', `The order's sender (the \`senderAddress\` given, else its first deposit's sender). ${addressRule}`, { type: 'string' }),
            query('destination', `The destination address. ${addressRule}`, { type: 'string' }),
            query('refund', `The refund address. ${addressRule}`, { type: 'string' }),
            query('orderType', '`market` or `limit` (always an empty page).', { type: 'string', enum: ['market', 'limit'] }),
            query('status', `Only orders of this coarse status. ${STATUS_TEXT}.`, ref('ListStatus')),
            query('limit', `Page size, an integer: default ${DEFAULT_PAGE}, values outside 1–${MAX_PAGE} are clamped; not an integer → 400.`, { type: 'integer', default: DEFAULT_PAGE }),
            query(
              'cursor',
              'The `nextCursor` of the previous page, unchanged: base64url of the last item\'s position (creation time and id), authenticated with an HMAC of a key derived from the gateway secret. Edited or forged → 400.',
              { type: 'string', pattern: '^[A-Za-z0-9_-]+$' },
            ),
          ],
          responses: {
            '200': json('One page.', 'OrderList', { items: [ITEM_EXAMPLE], nextCursor: null }),
            '400': json('A query parameter is invalid, unknown or repeated (`invalid_request`, naming it).', 'Error', issue('status', '`status` must be one of unfilled, filled, cancelled, settled, refunded, failed.')),
            ...commonErrors,
          },
        },
      },
      ...healthAndOpenApiPaths('Family C', requestIdHeader, commonErrors),
    },
    components: {
      schemas: FAMILY_C_SCHEMAS,
      headers: { XRequestId: { description: 'The request id, also on every log line of the request.', schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' } } },
      parameters: {
        XRequestId: { name: 'X-Request-Id', in: 'header', required: false, description: 'Kept when 1–128 characters of [A-Za-z0-9._:-].', schema: { type: 'string' } },
      },
    },
  };
}
