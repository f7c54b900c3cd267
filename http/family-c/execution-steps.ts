// The `executionSteps` of a Family C order: what the client runs to fund the order's deposit address, one step per
// source chain kind (an ERC-20 or native transfer on an EVM chain, a Bitcoin payment, a HyperCore spot transfer signed
// as EIP-712 typed data). Pure: the same input answers the same steps, so a re-read order shows the same steps.
import { encodeFunctionData, erc20Abi, maxUint256 } from 'viem';
import { writeAmount } from '../../src/assets/amounts.js';
import { CHAINS } from '../../src/assets/chains.js';
import { validateAddress } from '../../src/assets/addresses.js';
import type { Asset } from '../../src/assets/types.js';

export interface EvmCallStep {
  id: string;
  action: 'evm_call';
  kind: 'transfer_erc20' | 'transfer_native';
  chainId: number;
  /** The token contract (ERC-20) or the deposit address (native). */
  to: string;
  calldata: `0x${string}`;
  /** Native value in wei, a base-unit decimal string ("0" for an ERC-20 transfer). */
  value: string;
  /** The token contract; only on `transfer_erc20`. */
  tokenAddress?: string;
  /** Base-unit decimal string. */
  amount: string;
}

export interface BtcTransferStep {
  id: string;
  action: 'btc_transfer';
  kind: 'transfer_btc';
  /** The deposit address, a Bitcoin mainnet address. */
  to: string;
  /** Satoshis, a decimal string. */
  amount: string;
}

export interface Eip712Field {
  name: string;
  type: string;
}

export interface HyperCoreSpotSendMessage {
  hyperliquidChain: 'Mainnet';
  /** The deposit address, lower case. */
  destination: string;
  /** `<SYMBOL>:<token id>`, as spotMeta names the token. */
  token: string;
  /** Whole token units as a decimal string ("1.5"), not base units. */
  amount: string;
  /** Milliseconds since the epoch; also the nonce of the `/exchange` request. */
  time: number;
}

export interface Eip712SignStep {
  id: string;
  action: 'eip712_sign';
  kind: 'hypercore_send';
  /** The chain id the wallet signs for (the domain's chainId); HyperCore itself has no EVM chain id. */
  chainId: number;
  /** `chainId` in hex, the `signatureChainId` field of the HyperCore action the client posts. */
  signatureChainId: `0x${string}`;
  domain: { name: string; version: string; chainId: number; verifyingContract: `0x${string}` };
  types: Record<string, Eip712Field[]>;
  primaryType: 'HyperliquidTransaction:SpotSend';
  message: HyperCoreSpotSendMessage;
  /** Base units (weiDecimals) as a decimal string, like every other step's amount; the message carries it in whole units. */
  amount: string;
}

export type ExecutionStep = EvmCallStep | Eip712SignStep | BtcTransferStep;

export interface ExecutionStepsInput {
  orderId: string;
  from: Asset;
  depositAddress: string;
  /** Base units of `from`. */
  amount: bigint;
  /** The client's funding address when it gave one; a deposit address accepts funds from anyone, so no step uses it. */
  senderAddress: string | null;
  approvalMode: 'full' | 'partial';
  /** Milliseconds since the epoch: the HyperCore nonce. */
  now: number;
}

/*
 * HyperCore user-signed actions (usdSend, spotSend, withdraw, …) are plain EIP-712 typed data, not the msgpack
 * "phantom agent" scheme of L1 actions. As written in hyperliquid-dex/hyperliquid-python-sdk,
 * hyperliquid/utils/signing.py (`user_signed_payload`, `sign_user_signed_action`, `SPOT_TRANSFER_SIGN_TYPES`,
 * `sign_spot_transfer_action`), and matched by the TypeScript SDK nktkas/hyperliquid (src/signing/_userSigned.ts,
 * src/api/exchange/_methods/spotSend.ts `SpotSendTypes`):
 * - domain {name "HyperliquidSignTransaction", version "1", chainId = int(signatureChainId), verifyingContract 0x0…0};
 * - primary type "HyperliquidTransaction:SpotSend" with fields, in this order: hyperliquidChain string,
 *   destination string, token string, amount string, time uint64;
 * - the action posted is {type "spotSend", signatureChainId, hyperliquidChain, destination, token, amount, time} with
 *   the request's nonce equal to `time`.
 * signatureChainId is only the chain the wallet signs under ("can be any chain", says the Python SDK; hyperliquidChain
 * is what binds the action to mainnet). The sources differ on its value: the Python SDK hardcodes 0x66eee (421614),
 * nktkas defaults to the wallet's chain, API docs' examples show 0xa4b1; the Python SDK's value is used here.
 * `token` is "<name>:<tokenId>" of spotMeta and `amount` is in whole token units (weiDecimals), e.g. "1.5".
 * nktkas lower-cases hex strings before signing (its Address schema), so the destination is signed in lower case.
 */
export const HYPERCORE_SIGNATURE_CHAIN_ID = 421614;
export const HYPERCORE_SIGN_DOMAIN = {
  name: 'HyperliquidSignTransaction',
  version: '1',
  chainId: HYPERCORE_SIGNATURE_CHAIN_ID,
  verifyingContract: '0x0000000000000000000000000000000000000000',
} as const;
const EIP712_DOMAIN_FIELDS: Eip712Field[] = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
];
export const SPOT_SEND_FIELDS: readonly Eip712Field[] = Object.freeze([
  { name: 'hyperliquidChain', type: 'string' },
  { name: 'destination', type: 'string' },
  { name: 'token', type: 'string' },
  { name: 'amount', type: 'string' },
  { name: 'time', type: 'uint64' },
]);

/**
 * The amount an ERC-20 approval grants: `full` the unlimited allowance (2^256−1, one approval for every later order),
 * `partial` exactly this order's amount. A deposit-address flow sends tokens with `transfer` and never has a spender
 * to approve, so `executionSteps` emits no approval step whatever the mode; this is what a route that pulls tokens
 * through a contract (`transferFrom`) uses for its approval step.
 */
export function approvalAmount(mode: 'full' | 'partial', amount: bigint): bigint {
  return mode === 'full' ? maxUint256 : amount;
}

/**
 * The steps funding an order's deposit address from `input.from`.
 * @throws Error when the deposit address does not fit the source chain or the amount is not positive: both come from
 * the router, not the client, so they are a bug, never a 4xx.
 */
export function executionSteps(input: ExecutionStepsInput): ExecutionStep[] {
  const { orderId, from, amount } = input;
  if (amount <= 0n) throw new Error(`Order ${orderId}: funding amount ${amount} is not positive.`);
  const depositAddress = ourAddress(input);
  const id = `${orderId}:fund`;
  const chain = CHAINS[from.chain];
  switch (chain.kind) {
    case 'bitcoin':
      return [{ id, action: 'btc_transfer', kind: 'transfer_btc', to: depositAddress, amount: amount.toString() }];
    case 'evm': {
      const chainId = chain.evmChainId!;
      if (from.native || from.address === null) {
        return [{ id, action: 'evm_call', kind: 'transfer_native', chainId, to: depositAddress, calldata: '0x', value: amount.toString(), amount: amount.toString() }];
      }
      const calldata = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [depositAddress as `0x${string}`, amount] });
      return [{ id, action: 'evm_call', kind: 'transfer_erc20', chainId, to: from.address, calldata, value: '0', tokenAddress: from.address, amount: amount.toString() }];
    }
    case 'hyperliquid':
      return [hyperCoreSpotSend(id, from, depositAddress, amount, input.now)];
  }
}

/** The deposit address checked against the source chain (bitcoinjs-lib mainnet for Bitcoin, EIP-55 for EVM/HyperCore). */
function ourAddress(input: ExecutionStepsInput): string {
  try {
    return validateAddress(input.from.chain, input.depositAddress, 'depositAddress');
  } catch (err) {
    throw new Error(`Order ${input.orderId}: deposit address ${JSON.stringify(input.depositAddress)} is not a ${input.from.chain} address (${(err as Error).message})`);
  }
}

function hyperCoreSpotSend(id: string, from: Asset, depositAddress: string, amount: bigint, now: number): Eip712SignStep {
  if (from.address === null) throw new Error(`HyperCore asset ${from.id} has no token id.`);
  if (!Number.isSafeInteger(now) || now < 0) throw new Error(`now ${now} is not a millisecond timestamp.`);
  return {
    id,
    action: 'eip712_sign',
    kind: 'hypercore_send',
    chainId: HYPERCORE_SIGNATURE_CHAIN_ID,
    signatureChainId: `0x${HYPERCORE_SIGNATURE_CHAIN_ID.toString(16)}`,
    domain: { ...HYPERCORE_SIGN_DOMAIN },
    // EIP712Domain is listed because eth_signTypedData_v4 wallets hash the domain with the fields the types name.
    types: { EIP712Domain: EIP712_DOMAIN_FIELDS.map((f) => ({ ...f })), 'HyperliquidTransaction:SpotSend': SPOT_SEND_FIELDS.map((f) => ({ ...f })) },
    primaryType: 'HyperliquidTransaction:SpotSend',
    message: {
      hyperliquidChain: 'Mainnet',
      destination: depositAddress.toLowerCase(),
      token: `${from.symbol}:${from.address}`,
      // The shortest decimal form ("1.5", "1"), the form HyperCore's wire decimals take.
      amount: writeAmount(amount, from, 'formatted'),
      time: now,
    },
    amount: amount.toString(),
  };
}
