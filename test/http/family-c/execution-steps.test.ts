// executionSteps: every step decoded back to what it pays — ERC-20 calldata to `transfer(deposit, amount)`, native
// value, the Bitcoin address through bitcoinjs-lib, the HyperCore typed data through a signature and its recovery.
import * as ecc from '@bitcoinerlab/secp256k1';
import { address as btcAddress, initEccLib, networks } from 'bitcoinjs-lib';
import { decodeFunctionData, erc20Abi, getAddress, hashTypedData, maxUint256, parseSignature, recoverTypedDataAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import {
  approvalAmount,
  executionSteps,
  HYPERCORE_SIGN_DOMAIN,
  type BtcTransferStep,
  type Eip712SignStep,
  type EvmCallStep,
  type ExecutionStepsInput,
} from '../../../http/family-c/execution-steps.js';
import { findAsset } from '../../../src/assets/registry.js';
import type { Asset, ChainName } from '../../../src/assets/types.js';
import { RouterError } from '../../../src/errors.js';

initEccLib(ecc);

const ORDER = 'ord_7f3c2a';
const NOW = 1_767_225_600_123;
// A fixed test key (the one nktkas/hyperliquid's signing tests use, so its published vector applies below).
const KEY = '0x822e9959e022b78423eb653a62ea0020cd283e71a2a8133a6ff2aeffaf373cff';
const account = privateKeyToAccount(KEY);
const EVM_DEPOSIT = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
const BTC_DEPOSIT = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';

function asset(chain: ChainName, symbol: string): Asset {
  const a = findAsset(chain, symbol);
  if (!a) throw new Error(`no ${symbol} on ${chain}`);
  return a;
}
function steps(from: Asset, amount: bigint, over: Partial<ExecutionStepsInput> = {}) {
  return executionSteps({ orderId: ORDER, from, depositAddress: EVM_DEPOSIT, amount, senderAddress: null, approvalMode: 'partial', now: NOW, ...over });
}
function only<T>(list: unknown[]): T {
  expect(list).toHaveLength(1);
  return list[0] as T;
}

describe('EVM ERC-20 source: one transfer(depositAddress, amount) call on the token contract', () => {
  it.each([
    ['ethereum', 'USDC', 1, 1_500_000n],
    ['base', 'USDC', 8453, 2_000_000_000n],
    ['ethereum', 'WBTC', 1, 12_345_678n],
    ['arbitrum', 'WBTC', 42161, 1n],
  ] as const)('%s %s', (chain, symbol, chainId, amount) => {
    const from = asset(chain, symbol);
    const step = only<EvmCallStep>(steps(from, amount));
    expect(step).toMatchObject({ id: `${ORDER}:fund`, action: 'evm_call', kind: 'transfer_erc20', chainId, to: from.address, value: '0', tokenAddress: from.address, amount: amount.toString() });
    const call = decodeFunctionData({ abi: erc20Abi, data: step.calldata });
    expect(call.functionName).toBe('transfer');
    expect(call.args).toEqual([getAddress(EVM_DEPOSIT), amount]);
    expect(JSON.parse(JSON.stringify(step))).toEqual(step);
  });
  it('a lower-case deposit address gives the same calldata', () => {
    const a = only<EvmCallStep>(steps(asset('base', 'USDC'), 7n));
    const b = only<EvmCallStep>(steps(asset('base', 'USDC'), 7n, { depositAddress: EVM_DEPOSIT.toLowerCase() }));
    expect(b.calldata).toBe(a.calldata);
  });
});

describe('EVM native source: value = amount, empty calldata, to the deposit address', () => {
  it.each([['ethereum', 1], ['base', 8453], ['arbitrum', 42161], ['robinhood', 4663], ['ink', 57073]] as const)('%s ETH', (chain, chainId) => {
    const amount = 123_000_000_000_000_000n;
    const step = only<EvmCallStep>(steps(asset(chain, 'ETH'), amount));
    expect(step).toEqual({ id: `${ORDER}:fund`, action: 'evm_call', kind: 'transfer_native', chainId, to: getAddress(EVM_DEPOSIT), calldata: '0x', value: amount.toString(), amount: amount.toString() });
    expect(BigInt(step.value)).toBe(amount);
  });
});

describe('Bitcoin source: a payment of `amount` sats to the deposit address', () => {
  it.each([
    BTC_DEPOSIT,
    'bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297',
    '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2',
    '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
  ])('%s', (depositAddress) => {
    const step = only<BtcTransferStep>(steps(asset('bitcoin', 'BTC'), 250_000n, { depositAddress }));
    expect(step).toEqual({ id: `${ORDER}:fund`, action: 'btc_transfer', kind: 'transfer_btc', to: depositAddress, amount: '250000' });
    expect(() => btcAddress.toOutputScript(step.to, networks.bitcoin)).not.toThrow();
    expect(BigInt(step.amount)).toBe(250_000n);
  });
  it.each([
    ['a testnet address', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx'],
    ['an EVM address', EVM_DEPOSIT],
    ['a broken checksum', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5'],
    ['an empty string', ''],
  ])('%s as deposit address is our bug: a plain Error, never a 4xx', (_what, depositAddress) => {
    let thrown: unknown;
    try {
      steps(asset('bitcoin', 'BTC'), 1n, { depositAddress });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).not.toBeInstanceOf(RouterError);
  });
});

describe('HyperCore source: HyperliquidTransaction:SpotSend typed data to the deposit address', () => {
  const usdc = asset('hyperliquid', 'USDC');
  const deposit = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d').address;
  const hlSteps = (from: Asset, amount: bigint) => steps(from, amount, { depositAddress: deposit });

  it('signs with a local account and recovers it; the message decodes to deposit, token and decimal amount', async () => {
    const step = only<Eip712SignStep>(hlSteps(usdc, 150_000_000n));
    expect(step).toMatchObject({ id: `${ORDER}:fund`, action: 'eip712_sign', kind: 'hypercore_send', chainId: 421614, signatureChainId: '0x66eee', amount: '150000000' });
    // The wire step is JSON: what the client receives is what it signs.
    const wire = JSON.parse(JSON.stringify(step)) as Eip712SignStep;
    expect(wire).toEqual(step);
    const typed = { domain: wire.domain, types: wire.types, primaryType: wire.primaryType, message: wire.message } as any;
    const signature = await account.signTypedData(typed);
    expect(await recoverTypedDataAddress({ ...typed, signature })).toBe(account.address);
    expect(wire.message).toEqual({ hyperliquidChain: 'Mainnet', destination: deposit.toLowerCase(), token: 'USDC:0x6d1e7cde53ba9467b783cb7c530ce054', amount: '1.5', time: NOW });
  });

  it('is exactly the Python SDK payload (domain, field order, primary type), whichever EIP712Domain source', () => {
    const step = only<Eip712SignStep>(hlSteps(usdc, 150_000_000n));
    const sdk = {
      domain: { name: 'HyperliquidSignTransaction', version: '1', chainId: 421614, verifyingContract: '0x0000000000000000000000000000000000000000' },
      types: {
        'HyperliquidTransaction:SpotSend': [
          { name: 'hyperliquidChain', type: 'string' },
          { name: 'destination', type: 'string' },
          { name: 'token', type: 'string' },
          { name: 'amount', type: 'string' },
          { name: 'time', type: 'uint64' },
        ],
      },
      primaryType: 'HyperliquidTransaction:SpotSend',
      message: { hyperliquidChain: 'Mainnet', destination: deposit.toLowerCase(), token: 'USDC:0x6d1e7cde53ba9467b783cb7c530ce054', amount: '1.5', time: BigInt(NOW) },
    } as const;
    expect(step.domain).toEqual(sdk.domain);
    expect(step.types['HyperliquidTransaction:SpotSend']).toEqual(sdk.types['HyperliquidTransaction:SpotSend']);
    // The explicit EIP712Domain in the step's types is the one viem derives from the domain.
    expect(hashTypedData(step as any)).toBe(hashTypedData(sdk));
  });

  it('the domain reproduces the published user-signed vector of nktkas/hyperliquid (UsdSend, same key)', async () => {
    const signature = await account.signTypedData({
      domain: HYPERCORE_SIGN_DOMAIN,
      types: {
        'HyperliquidTransaction:UsdSend': [
          { name: 'hyperliquidChain', type: 'string' },
          { name: 'destination', type: 'string' },
          { name: 'amount', type: 'string' },
          { name: 'time', type: 'uint64' },
        ],
      },
      primaryType: 'HyperliquidTransaction:UsdSend',
      message: { hyperliquidChain: 'Mainnet', destination: '0x1234567890123456789012345678901234567890', amount: '1000', time: 1234567890n },
    });
    const { r, s, v } = parseSignature(signature);
    expect(r).toBe('0xf777c38efe7c24cc71209526ae608f4e384d0586edf578f0e97b4b9f7c7adcc6');
    expect(s).toBe('0x104a4a97c48ae77bf5bd777bdd45fe72d8f5ff29116b5ff64fd8cfe4ea610786');
    expect(v).toBe(28n);
  });

  it.each([
    ['HYPE', 100_000_000n, 'HYPE:0x0d01dc56dcaaca66ad901c959b4011ec', '1'],
    ['UBTC', 12_345n, 'UBTC:0x8f254b963e8468305d409b33aa137c67', '0.0000012345'],
    ['UETH', 2_500_000_001n, 'UETH:0xe1edd30daaf5caac3fe63569e24748da', '2.500000001'],
  ] as const)('%s: amount in whole units of its weiDecimals', (symbol, amount, token, decimal) => {
    const step = only<Eip712SignStep>(hlSteps(asset('hyperliquid', symbol), amount));
    expect(step.message.token).toBe(token);
    expect(step.message.amount).toBe(decimal);
    expect(step.amount).toBe(amount.toString());
  });

  it('a deposit address that is not an EVM address is refused as our bug', () => {
    expect(() => steps(usdc, 1n, { depositAddress: BTC_DEPOSIT })).toThrow(Error);
  });
});

describe('no approval step in a deposit-address flow', () => {
  it.each(['full', 'partial'] as const)('approvalMode %s: only the funding step', (approvalMode) => {
    for (const from of [asset('ethereum', 'USDC'), asset('base', 'ETH')]) {
      const list = steps(from, 10n, { approvalMode });
      expect(list.map((s) => s.id)).toEqual([`${ORDER}:fund`]);
    }
  });
  it('approvalAmount: full is 2^256−1, partial is the amount', () => {
    expect(approvalAmount('full', 5n)).toBe(2n ** 256n - 1n);
    expect(approvalAmount('full', 5n)).toBe(maxUint256);
    expect(approvalAmount('partial', 5n)).toBe(5n);
  });
});

describe('ids and amounts', () => {
  it('the id is stable per order and differs between orders', () => {
    const from = asset('ethereum', 'USDC');
    expect(steps(from, 1n)[0]!.id).toBe(steps(from, 2n)[0]!.id);
    expect(steps(from, 1n, { orderId: 'other' })[0]!.id).toBe('other:fund');
  });
  it('a non-positive amount is our bug', () => {
    expect(() => steps(asset('ethereum', 'USDC'), 0n)).toThrow(Error);
    expect(() => steps(asset('ethereum', 'ETH'), -1n)).toThrow(Error);
  });
});
