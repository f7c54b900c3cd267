// Family C on the wire (spec 2.7, 4): camelCase, typed currencies, amounts as base-unit decimal strings. These types
// mirror schemas.ts; the tests validate every answer against the served document to keep them in step.
import type { ListStatus } from '../../src/orders/summary.js';
import type { ExecutionStep } from './execution-steps.js';

export type WireChain = { kind: 'EVM'; chainId: number } | { kind: 'BITCOIN' } | { kind: 'HYPERCORE' };
export type WireToken = { kind: 'NATIVE'; decimals: number } | { kind: 'TOKEN'; address: string; decimals: number };

export interface WireCurrency {
  chain: WireChain;
  token: WireToken;
}

export type WireQuoteType = 'EXACT_INPUT' | 'EXACT_OUTPUT';

export interface WireCQuoteRequest {
  type: WireQuoteType;
  from: WireCurrency;
  to: WireCurrency;
  amount: string;
  slippageBps: number;
}

export interface WireFee {
  amount: string;
  currency: WireCurrency;
  usd: number;
}

export interface WireFeeBreakdown {
  totalUsd: number;
  preswap: WireFee;
  postswap: WireFee;
  rift: { network: WireFee; liquidity: WireFee; protocol: WireFee };
}

interface QuoteHead {
  id: string;
  fees: WireFeeBreakdown;
  expiresAt: string;
}

export type WireCQuote =
  | ({ mode: 'exact_input' } & QuoteHead & {
      from: { currency: WireCurrency; expected: string };
      to: { currency: WireCurrency; expected: string; minimum: string };
    })
  | ({ mode: 'exact_output' } & QuoteHead & {
      from: { currency: WireCurrency; expected: string; maximum: string };
      to: { currency: WireCurrency; expected: string };
    });

export type WireApprovalMode = 'full' | 'partial';

export interface WireCOrderRequest {
  id: string;
  destinationAddress: string;
  refundAddress: string;
  senderAddress?: string;
  integratorName?: string;
  approvalMode?: WireApprovalMode;
}

export interface WireSwap {
  orderId: string;
  quote: WireCQuote;
  executionSteps: ExecutionStep[];
}

export interface WireOrderListItem {
  orderId: string;
  routeType: 'direct' | 'multi_hop';
  orderType: 'market' | 'limit';
  provider: string;
  path: string[];
  status: ListStatus;
  senderAddress: string | null;
  destinationAddress: string;
  refundAddress: string | null;
  otcSwapId: null;
  swapperSwapId: null;
  cowOrderUid: null;
  sellCurrency: WireCurrency;
  buyCurrency: WireCurrency;
  quoteMode: 'exact_input' | 'exact_output';
  quotedSellAmount: string;
  quotedBuyAmount: string;
  quotedMinimumBuyAmount: string | null;
  quotedMaximumSellAmount: string | null;
  executedSellAmount: string | null;
  executedBuyAmount: string | null;
  executedFeeAmount: string | null;
  depositTxHash: string | null;
  payoutTxHash: string | null;
  refundTxHash: string | null;
  rawRouterJson: unknown;
  rawExternalDEXOrderJson: null;
  rawOtcJson: null;
  rawSwapperJson: null;
  externalDexStatus: null;
  teeOtcStatus: null;
  teeSwapperStatus: null;
  createdAt: string;
  updatedAt: string;
  lastSourceUpdateAt: string | null;
  terminalAt: string | null;
}

export interface WireOrderList {
  items: WireOrderListItem[];
  nextCursor: string | null;
}
