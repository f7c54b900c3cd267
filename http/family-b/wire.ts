// Family B (the gateway) on the wire (spec 2.6): camelCase, amounts as strings per `amountFormat`. These types mirror
// schemas.ts; the tests validate every answer against the served document to keep them in step.
import type { BOrderStatus } from './statuses.js';

export type BAmountFormat = 'readable' | 'raw';
export type BOrderType = 'market_order' | 'market';
export type BRefundMode = 'evmSignature' | 'token';

export interface WireBQuoteRequest {
  from: string;
  to: string;
  fromAmount: string;
  amountFormat?: BAmountFormat;
  orderType?: BOrderType;
  returnFullRoute?: boolean;
  includeQuoteCandidates?: boolean;
}

export interface WireLeg {
  venue: string;
  from: string;
  to: string;
  amountIn: string;
  providerAmountIn: string;
  providerAmountOut: string;
  amountOut: string;
  paymasterReimbursement: { inputRetained: string; outputRetained: string };
}

export interface WireFee {
  kind: 'network' | 'gas_desk' | 'delivery';
  label: string;
  asset: string;
  amount: string;
  amountRaw: string;
}

export interface WireCandidate {
  family: 'single_hop' | 'multi_hop';
  status: 'quoted' | 'failed' | 'timed_out';
  venues: string[];
  latency_ms: number;
  raw_quote?: WireLeg[];
}

interface QuoteHead {
  quoteId: string;
  from: string;
  to: string;
  expiry: string;
  estimatedOut: string;
  amountFormat: BAmountFormat;
  quoteCandidates?: WireCandidate[];
}

export type WireBQuote =
  | (QuoteHead & { orderType: 'market_order'; expectedSwapTimeMs: number; route?: WireLeg[] })
  | (QuoteHead & { orderType: 'market'; venues: string[]; fees: WireFee[] });

export interface WireBOrderRequest {
  quoteId: string;
  fromAddress: string;
  toAddress: string;
  refundAuthorizer?: string | null;
  refundAddress?: string;
  integrator?: string;
  idempotencyKey?: string;
  cancelAfter?: string;
  refundMode?: BRefundMode;
  amountFormat?: BAmountFormat;
}

export interface WireBCancelRequest {
  refundToken?: string;
  refundSignature?: string;
  refundSignatureDeadline?: number;
  amountFormat?: BAmountFormat;
}

interface OrderHead {
  orderId: string;
  orderAddress: string;
  amountToSend: string;
  quoteId: string;
  from: string;
  to: string;
  status: BOrderStatus;
  expiry: string;
  amountFormat: BAmountFormat;
  refundMode: BRefundMode | null;
  refundAuthorizer: string | null;
  refundToken?: string;
  fromAddress: string | null;
  toAddress: string;
  refundAddress: string | null;
  cancelAfter: string | null;
  createdAt: string;
  /** Why the order failed or is refunded; null on the plain path. */
  statusReason: string | null;
  amountOut?: string;
}

export type WireBOrder =
  | (OrderHead & { orderType: 'market_order'; estimatedOut: string; route: WireLeg[]; expectedSwapTimeMs: number; maxSlippage: string; minOut: string })
  | (OrderHead & {
      orderType: 'market';
      expectedOut: string;
      maxSlippage: string;
      minOut: string;
      maxIn: string;
      expectedSlippage: string;
    });

export interface WireBError {
  error: { code: string; message: string; details: Record<string, unknown> };
}
