// The OpenAPI 3.1 document of Family B (the gateway, beta), served at GET /openapi.json. Its schemas are the objects
// ajv validates requests with (schemas.ts), so what is published is what is enforced.
import { healthAndOpenApiPaths } from '../json-schema.js';
import { bodyErrorAnswers, COMMON_ERROR_ANSWERS as commonErrors, envelopeExample as err, jsonAnswer, REQUEST_ID_HEADER as requestIdHeader, REQUEST_ID_PARAM as requestIdParam } from '../openapi-envelope.js';
import { FAMILY_B_SCHEMAS, ref, type BSchemaName, type JsonSchema } from './schemas.js';

export const FAMILY_B_VERSION = '0.1.0-beta';

const json = (description: string, schema: BSchemaName, example?: unknown): JsonSchema => jsonAnswer(description, ref(schema), example);

const bodyErrors = bodyErrorAnswers(
  'Malformed JSON, schema or rule broken (`invalid_request`, `details.issues` [{path, message}]).',
  err('invalid_request', '`fromAmount` is required.', { issues: [{ path: 'fromAmount', message: '`fromAmount` is required.' }] }),
);

const LEG_EXAMPLE = {
  venue: 'relay', from: 'base.USDC', to: 'arbitrum.USDC', amountIn: '1000', providerAmountIn: '999.98', providerAmountOut: '999.5',
  amountOut: '999.49', paymasterReimbursement: { inputRetained: '0.02', outputRetained: '0.01' },
};

const ORDER_EXAMPLE = {
  orderId: 'cfe092b2-a61f-5973-9179-7b09133fe1a1', orderAddress: '0x3cE2B04488B817c848a6D7482f593Df2C5D2bBA0', amountToSend: '1000',
  quoteId: '0b6f8c1e-2f4a-4c1d-9a57-6d1e0e3b9f10', orderType: 'market_order', from: 'base.USDC', to: 'arbitrum.USDC', status: 'quoted',
  expiry: '2026-11-29T10:00:01.000Z', amountFormat: 'readable', refundMode: 'token', refundAuthorizer: null,
  refundToken: 'rgt_DyNznWTWUTqUw2iql8Oy0-JtCS1sISySd5vTeBNog00', fromAddress: '0x000000000000000000000000000000000000dEaD',
  toAddress: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94', refundAddress: '0x000000000000000000000000000000000000dEaD', cancelAfter: null,
  createdAt: '2026-11-22T10:00:01.000Z', statusReason: null, estimatedOut: '999.49', route: [LEG_EXAMPLE], expectedSwapTimeMs: 12250,
  maxSlippage: '0.01', minOut: '989.4951',
};
const { refundToken: _token, ...CANCELLED_EXAMPLE_BASE } = ORDER_EXAMPLE;
const CANCELLED_EXAMPLE = { ...CANCELLED_EXAMPLE_BASE, status: 'cancelled', statusReason: 'The order was cancelled; what arrived is refunded.' };

export function familyBOpenApi(): JsonSchema {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Swap router: Family B (gateway, beta)',
      version: FAMILY_B_VERSION,
      description:
        'camelCase gateway over the same quotes and orders as Family A (an order made here is readable there). Every ' +
        'non-2xx answer is `{error: {code, message, details}}`: invalid_request 400, unauthorized 401, not_found 404, ' +
        'method_not_allowed 405, conflict 409, quote_expired 410, payload_too_large 413, unsupported_media_type 415, ' +
        'insufficient_liquidity 422, rate_limited 429, internal 500, unavailable 503. Quotes are priced in `fast` mode (1.5 s per venue).',
    },
    servers: [{ url: '{gateway_url}', variables: { gateway_url: { default: 'http://localhost:8081' } } }],
    paths: {
      '/quote': {
        post: {
          operationId: 'createQuote',
          summary: 'Prices a swap; `orderType` picks the answer shape.',
          parameters: [requestIdParam],
          requestBody: { required: true, content: { 'application/json': { schema: ref('QuoteRequest'), example: { from: 'base.usdc', to: 'arbitrum.usdc', fromAmount: '1000' } } } },
          responses: {
            '200': json('The quote (`market_order` or `market` shape).', 'Quote', {
              quoteId: '0b6f8c1e-2f4a-4c1d-9a57-6d1e0e3b9f10', orderType: 'market_order', from: 'base.USDC', to: 'arbitrum.USDC',
              expiry: '2026-11-22T10:10:00.000Z', estimatedOut: '999.49', amountFormat: 'readable', expectedSwapTimeMs: 12250, route: [LEG_EXAMPLE],
            }),
            ...bodyErrors,
            '422': json('No venue could quote the pair and amount (`insufficient_liquidity`; `details.quoteCandidates` when asked).', 'Error',
              err('insufficient_liquidity', 'No venue could quote base.USDC → bitcoin.BTC for 0.000001.')),
            ...commonErrors,
          },
        },
      },
      '/order/market': {
        post: {
          operationId: 'createMarketOrder',
          summary: 'Turns a quote into an order with a fresh deposit address.',
          description:
            'Checks in this order: body (400), refund mode (`evmSignature` needs an EVM `refundAuthorizer`; `token` refuses one), ' +
            'unknown quote (404; also a quote made through the typed-currency API, whose slippageBps this API cannot honour), addresses for the quote\'s chains (400), `cancelAfter` (only for `market` quotes; future; before ' +
            'the deposit deadline; 400), then binding: expired quote 410, quote bound to another order or request 409. ' +
            '`minOut` = estimatedOut × (10000 − ROUTER_MAX_SLIPPAGE_BPS) / 10000, rounded down, and binds: a route re-priced below ' +
            'it refunds (reason `slippage`). Idempotency: the same `idempotencyKey` with the same body answers the same order ' +
            '(201 first, 200 after); another body → 409. Without a key, the same quote with the same body answers its order ' +
            '(200); other addresses or terms → 409. In `token` mode the first answer carries `refundToken`, and so does a repeat with the order\'s `idempotencyKey`; a ' +
            'repeat without a key does not (its body can be rebuilt from public answers).',
          parameters: [requestIdParam],
          requestBody: { required: true, content: { 'application/json': { schema: ref('OrderRequest'), example: {
            quoteId: '0b6f8c1e-2f4a-4c1d-9a57-6d1e0e3b9f10', fromAddress: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
            toAddress: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94', refundMode: 'token',
          } } } },
          responses: {
            '201': { ...json('The new order, status `quoted`.', 'Order', ORDER_EXAMPLE), headers: { 'X-Request-Id': requestIdHeader, Location: { schema: { type: 'string' } } } },
            '200': { ...json('The order this request already created (replay).', 'Order'), headers: { 'X-Request-Id': requestIdHeader, Location: { schema: { type: 'string' } } } },
            ...bodyErrors,
            '409': json('The quote is bound to another order, or the idempotency key was used with another body (`conflict`).', 'Error'),
            '410': json('The quote has expired (`quote_expired`).', 'Error'),
            ...commonErrors,
            '404': json('Unknown quote, or no such path (`not_found`).', 'Error'),
          },
        },
      },
      '/order/{orderId}': {
        get: {
          operationId: 'getOrder',
          summary: 'The order in its creation shape with its current status; poll every few seconds until completed, cancelled, refunded, expired or failed.',
          parameters: [requestIdParam, orderIdParam, amountFormatParam],
          responses: {
            '200': json('The order.', 'Order'),
            '400': json('`orderId` is not a uuid, or `amountFormat` is not readable/raw (`invalid_request`).', 'Error'),
            ...commonErrors,
            '404': json('No such order (`not_found`).', 'Error'),
          },
        },
      },
      '/order/{orderId}/cancel': {
        post: {
          operationId: 'cancelOrder',
          summary: 'Cancels an order that has not started executing; what arrived is refunded to `refundAddress`.',
          description:
            'Send exactly one of `refundToken` (token mode: the token of the creation answer; checked in constant time against ' +
            'HMAC-SHA256 of the gateway secret and the order id) or `refundSignature` + `refundSignatureDeadline` (evmSignature mode: ' +
            'an EIP-712 signature by `refundAuthorizer` of domain {name: "Swap Router Gateway", version: "1"} (no chainId), ' +
            'primary type CancelOrder {orderId string, gateway string, deadline uint256}, orderId lower-case as the service writes it, ' +
            'gateway = the deployment\'s ROUTER_GATEWAY_ID (default `swap-router`), deadline in unix seconds, not past and at most ' +
            '600 s ahead). A wrong token, signer, order or deadline → 401 `unauthorized`. A cancel is idempotent: asked ' +
            'again of an order it already cancelled (a retry), it answers the order as it is now (200); an authorization is ' +
            'not used up, so a token refused while the order executed still cancels it once stalled or failed. Any other ' +
            'order executing or finished → 409 `conflict` with `details.status`. The answer is the order with its new ' +
            'status (`cancelled` when nothing had arrived, else `refund_pending` then `refunded`).',
          parameters: [requestIdParam, orderIdParam],
          requestBody: { required: true, content: { 'application/json': { schema: ref('CancelRequest'), example: { refundToken: 'rgt_…' } } } },
          responses: {
            '200': json('Cancellation accepted: the order with its new status.', 'Order', CANCELLED_EXAMPLE),
            ...bodyErrors,
            '401': json('The token or signature does not authorise cancelling this order (`unauthorized`).', 'Error', err('unauthorized', 'The refund token is not valid for this order.')),
            '409': json('The order is executing or finished (`conflict`, `details.status`).', 'Error', err('conflict', 'Order … is completed: it can be cancelled only before it executes.', { status: 'completed' })),
            ...commonErrors,
            '404': json('No such order (`not_found`).', 'Error'),
          },
        },
      },
      ...healthAndOpenApiPaths('Family B', requestIdHeader, commonErrors),
    },
    components: {
      schemas: FAMILY_B_SCHEMAS,
      headers: { XRequestId: { description: 'The request id, also on every log line of the request.', schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' } } },
      parameters: {
        XRequestId: { name: 'X-Request-Id', in: 'header', required: false, description: 'Kept when 1–128 characters of [A-Za-z0-9._:-].', schema: { type: 'string' } },
      },
    },
  };
}

const orderIdParam = { name: 'orderId', in: 'path', required: true, description: 'Order id (a uuid; case-insensitive).', schema: { type: 'string', format: 'uuid' } };
const amountFormatParam = { name: 'amountFormat', in: 'query', required: false, schema: { ...ref('AmountFormat'), default: 'readable' } };
