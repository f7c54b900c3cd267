// JSON Schemas (draft 2020-12, the dialect of OpenAPI 3.1) of Family C: request bodies and every answer shape of spec
// 2.7 and 7. ajv validates requests with them and the OpenAPI document is built from them. Refs are
// `#/components/schemas/<Name>`.
import { LIST_STATUSES, LIST_STATUS_MEANINGS } from '../../src/orders/summary.js';
import { B_ERROR_CODES } from '../family-b/errors.js';
import { discriminated, type JsonSchema } from '../json-schema.js';

export type { JsonSchema };

export const C_SCHEMA_NAMES = [
  'Chain', 'Token', 'Currency', 'Amount', 'QuoteRequest', 'Fee', 'FeeBreakdown', 'Quote', 'OrderRequest', 'EvmCallStep',
  'Eip712SignStep', 'BtcTransferStep', 'ExecutionStep', 'Swap', 'ListStatus', 'OrderListItem', 'OrderList', 'Error',
] as const;
export type CSchemaName = (typeof C_SCHEMA_NAMES)[number];

export function ref(name: CSchemaName): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

const amount = (description: string): JsonSchema => ({ ...ref('Amount'), description });
const text = (min: number, max: number, description: string): JsonSchema => ({ type: 'string', minLength: min, maxLength: max, description });
const instant = (description: string): JsonSchema => ({ type: 'string', format: 'date-time', description });
const nullable = (schema: JsonSchema, description: string): JsonSchema => ({ anyOf: [schema, { type: 'null' }], description });
const hex = (description: string): JsonSchema => ({ type: 'string', pattern: '^0x[0-9a-fA-F]*$', description });
const object = (properties: Record<string, JsonSchema>, description: string, required = Object.keys(properties)): JsonSchema => ({
  type: 'object',
  description,
  required,
  additionalProperties: false,
  properties,
});

const LIST_STATUS_TEXT = LIST_STATUSES.map((s) => `\`${s}\`: ${LIST_STATUS_MEANINGS[s]}`).join('; ') + '.';

const currencyIn = (description: string): JsonSchema => ({ ...ref('Currency'), description });

const schemas: Record<CSchemaName, JsonSchema> = {
  Chain: discriminated(
    'kind',
    {},
    [],
    {
      EVM: {
        properties: { chainId: { type: 'integer', minimum: 1, description: 'EVM chain id: 1 (Ethereum), 8453 (Base), 42161 (Arbitrum), 4663 (Robinhood Chain), 57073 (Ink).' } },
        required: ['chainId'],
        description: 'An EVM chain, by its chain id.',
      },
      BITCOIN: { description: 'Bitcoin mainnet.' },
      HYPERCORE: { description: 'HyperCore (Hyperliquid\'s L1 spot order book), not HyperEVM.' },
    },
    'The chain of a currency. Any other kind or chain id → 400 `invalid_request` naming the field.',
  ),
  Token: discriminated(
    'kind',
    { decimals: { type: 'integer', minimum: 0, maximum: 255, description: 'Must equal the registry\'s decimals for the token (else 400 naming `token.decimals`); answers write the registry\'s.' } },
    ['decimals'],
    {
      NATIVE: { description: 'The chain\'s native coin: ETH on EVM chains, BTC on Bitcoin, HYPE on HyperCore.' },
      TOKEN: {
        properties: {
          address: text(1, 128, 'EVM: the ERC-20 contract address, any letter case. HyperCore: the spotMeta token id (0x + 32 hex digits); HYPE is also accepted as a TOKEN with its id, and is written as NATIVE. Answers write addresses in lower case.'),
        },
        required: ['address'],
        description: 'A token, by its address on the chain (not on Bitcoin).',
      },
    },
    'The token of a currency.',
  ),
  Currency: object({ chain: ref('Chain'), token: ref('Token') }, 'A chain and a token on it; it must name an asset of the router\'s registry.'),
  Amount: { type: 'string', minLength: 1, pattern: '^[0-9]+$', description: 'Base units as a decimal integer (an unsigned 256-bit integer).' },

  QuoteRequest: object(
    {
      type: { type: 'string', enum: ['EXACT_INPUT', 'EXACT_OUTPUT'], description: '`EXACT_INPUT`: `amount` is what is sold. `EXACT_OUTPUT`: `amount` is what the destination receives, exactly.' },
      from: currencyIn('Currency sold.'),
      to: currencyIn('Currency bought; a different asset from `from`.'),
      amount: { ...ref('Amount'), description: 'Base units of `from` (EXACT_INPUT) or of `to` (EXACT_OUTPUT); greater than 0 and at most 2^256−1 (else 400).' },
      slippageBps: { type: 'number', minimum: 0, maximum: 10_000, description: 'Slippage tolerance in basis points (100 is 1 %), a number from 0 to 10000; a fraction of a basis point is kept exactly. It sets `to.minimum` (exact input) or `from.maximum` (exact output).' },
    },
    'Body of POST /quote. No other property is accepted.',
  ),
  Fee: object(
    {
      amount: amount('In `currency`.'),
      currency: ref('Currency'),
      usd: { type: 'number', minimum: 0, description: 'USD value of `amount` at the quote\'s reference prices (the router\'s USD price oracle, read when the quote was priced), rounded to cents.' },
    },
    'One fee.',
  ),
  FeeBreakdown: object(
    {
      totalUsd: { type: 'number', minimum: 0, description: 'Sum of the five fees\' `usd`.' },
      preswap: { ...ref('Fee'), description: 'The first step\'s network fee when it is paid out of the sold asset on the source chain; in the `from` currency (0 when the router advances that gas).' },
      postswap: { ...ref('Fee'), description: 'The cost of delivering the output to the destination, in the `to` currency. For exact output it also holds what the route returns above the exact amount, which is kept.' },
      rift: object(
        {
          network: { ...ref('Fee'), description: 'Costs the router advances: gas of gas-desk steps and every step after the first, converted to the `from` currency through USD prices (each rounded up).' },
          liquidity: { ...ref('Fee'), description: 'What the venues keep: per step, the USD-oracle value of the venue\'s input in the step\'s output asset less the venue\'s output (never negative), in the `to` currency (each rounded up).' },
          protocol: { ...ref('Fee'), description: 'The router\'s own fee: always 0, in the `to` currency.' },
        },
        'Fees of the route itself.',
      ),
    },
    'Where value goes between the input and the destination. USD values come from the quote\'s `usdPrices`: the router\'s USD reference prices (8-decimal fixed point per whole unit), stored with the quote.',
  ),
  Quote: discriminated(
    'mode',
    {
      id: { type: 'string', format: 'uuid', description: 'Quote id: the `id` of POST /order/market.' },
      fees: ref('FeeBreakdown'),
      expiresAt: instant('Ten minutes after quoting; later, POST /order/market answers 410 `quote_expired`.'),
    },
    ['id', 'fees', 'expiresAt'],
    {
      exact_input: {
        properties: {
          from: object({ currency: ref('Currency'), expected: amount('Exactly the `amount` asked.') }, 'What is sold.'),
          to: object(
            {
              currency: ref('Currency'),
              expected: amount('Expected output at the destination, after every cost.'),
              minimum: amount('expected × (10000 − slippageBps) / 10000, rounded down: the order refunds rather than deliver less. Optional in the shape (as the API documents it); this service always sends it.'),
            },
            'What arrives.',
            ['currency', 'expected'],
          ),
        },
        required: ['from', 'to'],
        description: 'Quote of an EXACT_INPUT request.',
      },
      exact_output: {
        properties: {
          from: object(
            {
              currency: ref('Currency'),
              expected: amount('The smallest input the router found that delivers `to.expected`: send this.'),
              maximum: amount('expected × (10000 + slippageBps) / 10000, rounded up: the order accepts deposits up to it and, after delivering, refunds the input the route did not need.'),
            },
            'What is sold.',
          ),
          to: object({ currency: ref('Currency'), expected: amount('Exactly the `amount` asked: what the destination receives.') }, 'What arrives.'),
        },
        required: ['from', 'to'],
        description: 'Quote of an EXACT_OUTPUT request.',
      },
    },
    'Response of POST /quote, and the `quote` of a Swap.',
  ),
  OrderRequest: object(
    {
      id: { type: 'string', format: 'uuid', description: 'Quote id from POST /quote (Family C). Unknown, or made through another family → 404; expired → 410.' },
      destinationAddress: text(1, 128, 'Receiver on the `to` chain (validated for it).'),
      refundAddress: text(1, 128, 'Refunds go here, on the `from` chain (validated for it).'),
      senderAddress: text(1, 128, 'The client\'s address on the `from` chain: required when the `from` chain is an EVM chain (the execution steps are for it to send), optional otherwise. Validated for the `from` chain; selling bitcoin, an EVM address is taken too.'),
      integratorName: text(1, 128, 'Attribution.'),
      approvalMode: {
        type: 'string',
        enum: ['full', 'partial'],
        default: 'full',
        description: '`full` (default) would approve max uint256, `partial` only the sell amount. Recorded with the order; the steps fund a deposit address by plain transfer, which needs no approval, so no approval step appears.',
      },
    },
    'Body of POST /order/market. No other property is accepted.',
    ['id', 'destinationAddress', 'refundAddress'],
  ),
  EvmCallStep: object(
    {
      id: { type: 'string', minLength: 1, description: '`<orderId>:fund`.' },
      action: { type: 'string', const: 'evm_call' },
      kind: { type: 'string', enum: ['transfer_erc20', 'transfer_native'], description: '`transfer_erc20`: ERC-20 `transfer(depositAddress, amount)`; `transfer_native`: send `value` to the deposit address.' },
      chainId: { type: 'integer', minimum: 1 },
      to: text(1, 128, 'The token contract (ERC-20) or the deposit address (native).'),
      calldata: hex('ABI-encoded call data; `0x` for a native transfer.'),
      value: amount('Native value in wei; "0" for an ERC-20 transfer.'),
      tokenAddress: text(1, 128, 'The token contract; only on `transfer_erc20`.'),
      amount: amount('Base units of the sold asset sent to the deposit address.'),
    },
    'A transaction to send from `senderAddress` on an EVM chain. No `spenderAddress`: a deposit-address flow approves nothing.',
    ['id', 'action', 'kind', 'chainId', 'to', 'calldata', 'value', 'amount'],
  ),
  Eip712SignStep: object(
    {
      id: { type: 'string', minLength: 1, description: '`<orderId>:fund`.' },
      action: { type: 'string', const: 'eip712_sign' },
      kind: { type: 'string', const: 'hypercore_send', description: 'A HyperCore `spotSend` user-signed action to the deposit address.' },
      chainId: { type: 'integer', minimum: 1, description: 'The chain id the wallet signs under (the domain\'s chainId).' },
      signatureChainId: hex('`chainId` in hex: the `signatureChainId` of the action posted to HyperCore.'),
      domain: object(
        { name: { type: 'string' }, version: { type: 'string' }, chainId: { type: 'integer' }, verifyingContract: hex('The zero address.') },
        'EIP-712 domain.',
      ),
      types: {
        type: 'object',
        description: 'EIP-712 types (EIP712Domain and the primary type).',
        additionalProperties: { type: 'array', items: object({ name: { type: 'string' }, type: { type: 'string' } }, 'A field.') },
      },
      primaryType: { type: 'string', const: 'HyperliquidTransaction:SpotSend' },
      message: object(
        {
          hyperliquidChain: { type: 'string', const: 'Mainnet' },
          destination: text(1, 128, 'The deposit address, lower case.'),
          token: text(1, 128, '`<SYMBOL>:<token id>`.'),
          amount: { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$', description: 'Whole token units ("1.5").' },
          time: { type: 'integer', minimum: 0, description: 'Milliseconds since the epoch; also the nonce of the request.' },
        },
        'The message to sign.',
      ),
      amount: amount('Base units of the sold asset (the message carries it in whole units).'),
    },
    'Typed data to sign on HyperCore (a spotSend of the sold token to the deposit address).',
  ),
  BtcTransferStep: object(
    {
      id: { type: 'string', minLength: 1, description: '`<orderId>:fund`.' },
      action: { type: 'string', const: 'btc_transfer' },
      kind: { type: 'string', const: 'transfer_btc' },
      to: text(1, 128, 'The deposit address (Bitcoin mainnet).'),
      amount: amount('Satoshis.'),
    },
    'A Bitcoin payment to the deposit address.',
  ),
  ExecutionStep: {
    description: 'One step the client runs, told apart by `action`. `venue` and `spenderAddress` never appear: every step funds the deposit address, and the venues run on the router\'s side.',
    type: 'object',
    required: ['action'],
    properties: { action: { type: 'string', enum: ['evm_call', 'eip712_sign', 'btc_transfer'] } },
    // No `mapping`: ajv reads the tag's `const` in each branch instead (and refuses a mapping).
    discriminator: { propertyName: 'action' },
    oneOf: [ref('EvmCallStep'), ref('Eip712SignStep'), ref('BtcTransferStep')],
  },
  Swap: object(
    {
      orderId: { type: 'string', format: 'uuid', description: 'The order id (also readable through Family A and B).' },
      quote: { ...ref('Quote'), description: 'The quote the order was made from, as POST /quote answered it.' },
      executionSteps: {
        type: 'array',
        items: ref('ExecutionStep'),
        description: 'What the client runs to fund the order: one transfer of `quote.from.expected` to the order\'s deposit address on the `from` chain.',
      },
    },
    'Response of POST /order/market.',
  ),
  ListStatus: { type: 'string', enum: [...LIST_STATUSES], description: LIST_STATUS_TEXT },
  OrderListItem: object(
    {
      orderId: { type: 'string', format: 'uuid' },
      routeType: { type: 'string', enum: ['direct', 'multi_hop'], description: '`direct`: one venue step; `multi_hop`: more.' },
      orderType: { type: 'string', enum: ['market', 'limit'], description: 'Always `market`: limit orders are not offered.' },
      provider: { type: 'string', description: 'The first step\'s venue.' },
      path: { type: 'array', items: { type: 'string' }, description: 'Venues of the route\'s steps, in order.' },
      status: ref('ListStatus'),
      senderAddress: { type: ['string', 'null'], description: 'The `senderAddress` given, else the first deposit\'s sender; null until known.' },
      destinationAddress: { type: 'string' },
      refundAddress: { type: ['string', 'null'], description: 'Null for a Family A order without one until its first deposit.' },
      otcSwapId: { type: ['string', 'null'], description: 'Not used (no OTC desk): always null.' },
      swapperSwapId: { type: ['string', 'null'], description: 'Not used (no external swapper): always null.' },
      cowOrderUid: { type: ['string', 'null'], description: 'Not used (no CoW order): always null.' },
      sellCurrency: ref('Currency'),
      buyCurrency: ref('Currency'),
      quoteMode: { type: 'string', enum: ['exact_input', 'exact_output'] },
      quotedSellAmount: amount('The quoted input (`from.expected`).'),
      quotedBuyAmount: amount('The quoted output: the estimate (exact input) or the exact amount (exact output).'),
      quotedMinimumBuyAmount: nullable(ref('Amount'), 'The least the order may deliver (`to.minimum`, or the exact amount); null when the order has no bound (Family A).'),
      quotedMaximumSellAmount: nullable(ref('Amount'), 'The most the order accepts (`from.maximum` of exact output); null for exact input, which takes exactly `quotedSellAmount`.'),
      executedSellAmount: nullable(ref('Amount'), 'What the route took from the deposits; null until it ran.'),
      executedBuyAmount: nullable(ref('Amount'), 'What reached the destination; null until delivered.'),
      executedFeeAmount: nullable(ref('Amount'), 'Every cost paid so far (steps, delivery, refunds), in base units of the sell currency at the quoted route\'s rates; null before anything was paid.'),
      depositTxHash: { type: ['string', 'null'], description: 'The first deposit\'s transaction.' },
      payoutTxHash: { type: ['string', 'null'], description: 'The delivery\'s transaction.' },
      refundTxHash: { type: ['string', 'null'], description: 'The last refund paid with a transaction.' },
      rawRouterJson: { description: 'Raw JSON, may be null: here always the route as the router priced it, amounts as decimal strings.' },
      rawExternalDEXOrderJson: { description: 'Raw JSON, may be null: not used, always null.' },
      rawOtcJson: { description: 'Raw JSON, may be null: not used, always null.' },
      rawSwapperJson: { description: 'Raw JSON, may be null: not used, always null.' },
      externalDexStatus: nullable(
        { type: 'object', properties: { provider: { type: 'string' }, status: { type: 'string' } } },
        'Not used: always null (no external DEX order is placed).',
      ),
      teeOtcStatus: nullable({ type: 'object', properties: { status: { type: 'string' } } }, 'Not used: always null.'),
      teeSwapperStatus: nullable(
        { type: 'object', properties: { status: { type: 'string' }, orderStatus: { type: 'string' }, refundState: { type: 'string' } } },
        'Not used: always null.',
      ),
      createdAt: instant('Creation time.'),
      updatedAt: instant('Last save of the order.'),
      lastSourceUpdateAt: nullable(instant('When the source chain last told something about the deposits.'), 'Null before any deposit.'),
      terminalAt: nullable(instant('When the order reached settled, refunded or cancelled.'), 'Null while it is not terminal.'),
    },
    'One order of GET /orders. Every field is always present (null where it does not apply).',
  ),
  OrderList: object(
    {
      items: { type: 'array', items: ref('OrderListItem'), description: 'Newest first (creation time, then id).' },
      nextCursor: { type: ['string', 'null'], pattern: '^[A-Za-z0-9_-]+$', description: 'Pass as `cursor` for the next page; null on the last page.' },
    },
    'Response of GET /orders.',
  ),
  Error: object(
    {
      error: object(
        {
          code: { type: 'string', enum: [...B_ERROR_CODES] },
          message: { type: 'string', minLength: 1 },
          details: { description: 'Any JSON value; here always an object: `invalid_request`: `issues` [{path, message}]; 5xx: `requestId`; else {}.' },
        },
        'What went wrong.',
      ),
    },
    'Every non-success answer.',
  ),
};

export const FAMILY_C_SCHEMAS: Readonly<Record<CSchemaName, JsonSchema>> = schemas;
