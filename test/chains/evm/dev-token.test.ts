// DevToken on real anvil nodes: placed at the registry's addresses with the registry's symbol and decimals, minted
// and moved by real transactions whose Transfer logs viem decodes.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPublicClient,
  createWalletClient,
  getAddress,
  http,
  parseEventLogs,
  parseUnits,
  zeroAddress,
  type Address,
  type Chain,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { base, mainnet } from 'viem/chains';
import { ANVIL_ACCOUNTS, startAnvil, type AnvilNode } from '../../../src/chains/evm/anvil.js';
import {
  DEV_TOKEN_ARTIFACT,
  DEV_TOKEN_SLOTS,
  devToken,
  devTokenAbi,
  mintDevToken,
  placeDevToken,
  placeDevTokens,
  registryTokens,
  stringStorage,
} from '../../../src/chains/evm/dev-token.js';
import { artifactText, compileDevTokenSource } from '../../../src/chains/evm/compile-dev-token.js';
import { startDevChain, tokenAddress } from './support.js';

const [alice, bob, carol] = ANVIL_ACCOUNTS.map((a) => privateKeyToAccount(a.privateKey));

describe('DevToken: compiled by the npm solc in a build step, the artifact committed', () => {
  it('the committed artifact is exactly what compiling DevToken.sol now gives (npm run build:contracts)', () => {
    const fresh = compileDevTokenSource();
    expect(fresh.deployedBytecode).toMatch(/^0x[0-9a-f]{200,}$/);
    const names = fresh.abi.map((e) => ('name' in e ? e.name : e.type));
    for (const e of devTokenAbi) expect(names).toContain(e.name);
    // Byte for byte: a source changed without `npm run build:contracts` fails here.
    expect(readFileSync(DEV_TOKEN_ARTIFACT, 'utf8')).toBe(artifactText(fresh));
  });

  it('the runtime reads the artifact once (no compiler at run time)', () => {
    const t = devToken();
    expect(devToken()).toBe(t);
    expect(t.deployedBytecode).toBe(compileDevTokenSource().deployedBytecode);
    expect(t.abi).toBe(devTokenAbi);
  });

  it('encodes short and long strings as Solidity storage does', () => {
    const [[slot, value]] = stringStorage(DEV_TOKEN_SLOTS.symbol, 'USDC') as [[string, string]];
    expect(BigInt(slot)).toBe(4n);
    expect(value).toBe(`0x55534443${'00'.repeat(27)}08`);
    const long = stringStorage(DEV_TOKEN_SLOTS.name, 'x'.repeat(40));
    expect(long).toHaveLength(3);
    expect(BigInt(long[0]![1])).toBe(81n);
  });
});

/** Mints to alice, then alice sends to bob; checks balances, supply and the decoded Transfer logs. */
async function mintAndTransfer(node: AnvilNode, chain: Chain, token: Address, decimals: number): Promise<void> {
  const pub = createPublicClient({ chain, transport: http(node.url), pollingInterval: 20 }) as PublicClient;
  const wallet = createWalletClient({ account: alice!, chain, transport: http(node.url) });
  const read = (functionName: 'balanceOf', who: Address) => pub.readContract({ address: token, abi: devTokenAbi, functionName, args: [who] });
  const supply0 = await pub.readContract({ address: token, abi: devTokenAbi, functionName: 'totalSupply' });
  const alice0 = await read('balanceOf', alice!.address);
  const bob0 = await read('balanceOf', bob!.address);

  const minted = parseUnits('1000', decimals);
  const mintHash = await mintDevToken(node.url, token, alice!.address, minted);
  const mintLogs = parseEventLogs({ abi: devTokenAbi, eventName: 'Transfer', logs: (await pub.getTransactionReceipt({ hash: mintHash })).logs });
  expect(mintLogs).toHaveLength(1);
  expect(mintLogs[0]!.args).toEqual({ from: zeroAddress, to: alice!.address, value: minted });
  expect(getAddress(mintLogs[0]!.address)).toBe(token);

  const sent = parseUnits('250.5', decimals);
  const hash = await wallet.writeContract({ address: token, abi: devTokenAbi, functionName: 'transfer', args: [bob!.address, sent] });
  const receipt = await pub.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  const logs = parseEventLogs({ abi: devTokenAbi, logs: receipt.logs });
  expect(logs).toHaveLength(1);
  expect(logs[0]!.eventName).toBe('Transfer');
  expect(logs[0]!.args).toEqual({ from: alice!.address, to: bob!.address, value: sent });

  expect(await read('balanceOf', alice!.address)).toBe(alice0 + minted - sent);
  expect(await read('balanceOf', bob!.address)).toBe(bob0 + sent);
  expect(await pub.readContract({ address: token, abi: devTokenAbi, functionName: 'totalSupply' })).toBe(supply0 + minted);
}

describe('DevToken on Base (8453): the registry tokens at their real addresses', () => {
  let node: AnvilNode;
  beforeAll(async () => {
    node = await startDevChain('base');
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('USDC at 0x8335…2913 answers decimals 6 and symbol USDC', async () => {
    const usdc = tokenAddress('base', 'USDC');
    expect(usdc).toBe('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913');
    const pub = createPublicClient({ chain: base, transport: http(node.url) });
    expect(await pub.readContract({ address: usdc, abi: devTokenAbi, functionName: 'decimals' })).toBe(6);
    expect(await pub.readContract({ address: usdc, abi: devTokenAbi, functionName: 'symbol' })).toBe('USDC');
    expect(await pub.readContract({ address: usdc, abi: devTokenAbi, functionName: 'name' })).toBe('USDC (dev)');
  });

  it('every registry ERC-20 of Base answers its registry symbol and decimals', async () => {
    const pub = createPublicClient({ chain: base, transport: http(node.url) });
    const tokens = registryTokens('base');
    expect(tokens.map((t) => t.symbol).sort()).toEqual(['USDC', 'USDT', 'WETH', 'cbBTC']);
    for (const t of tokens) {
      expect(await pub.readContract({ address: t.address, abi: devTokenAbi, functionName: 'symbol' })).toBe(t.symbol);
      expect(await pub.readContract({ address: t.address, abi: devTokenAbi, functionName: 'decimals' })).toBe(t.decimals);
    }
  });

  it('USDC (6 decimals): mint, then transfer between two anvil accounts', async () => {
    await mintAndTransfer(node, base, tokenAddress('base', 'USDC'), 6);
  });

  it('cbBTC (8 decimals): mint, then transfer between two anvil accounts', async () => {
    const cbbtc = tokenAddress('base', 'cbBTC');
    const pub = createPublicClient({ chain: base, transport: http(node.url) });
    expect(await pub.readContract({ address: cbbtc, abi: devTokenAbi, functionName: 'decimals' })).toBe(8);
    await mintAndTransfer(node, base, cbbtc, 8);
  });

  it('a transfer beyond the balance reverts and moves nothing', async () => {
    const usdc = tokenAddress('base', 'USDC');
    const pub = createPublicClient({ chain: base, transport: http(node.url) });
    const wallet = createWalletClient({ account: carol!, chain: base, transport: http(node.url) });
    await expect(wallet.writeContract({ address: usdc, abi: devTokenAbi, functionName: 'transfer', args: [bob!.address, 1n] })).rejects.toThrow(/insufficient balance/);
    expect(await pub.readContract({ address: usdc, abi: devTokenAbi, functionName: 'balanceOf', args: [carol!.address] })).toBe(0n);
  });

  it('placing again keeps balances', async () => {
    const usdc = tokenAddress('base', 'USDC');
    const pub = createPublicClient({ chain: base, transport: http(node.url) });
    const before = await pub.readContract({ address: usdc, abi: devTokenAbi, functionName: 'balanceOf', args: [bob!.address] });
    expect(before).toBeGreaterThan(0n);
    await placeDevTokens(node.url, 'base');
    expect(await pub.readContract({ address: usdc, abi: devTokenAbi, functionName: 'balanceOf', args: [bob!.address] })).toBe(before);
  });

  it('refuses to place Ethereum tokens on the Base node', async () => {
    await expect(placeDevTokens(node.url, 'ethereum')).rejects.toThrow(/is chain 8453, ethereum is 1/);
    await expect(placeDevTokens(node.url, 'bitcoin')).rejects.toThrow(/not an EVM chain/);
  });
});

describe('DevToken on Ethereum (1)', () => {
  let node: AnvilNode;
  beforeAll(async () => {
    node = await startDevChain('ethereum');
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('USDC at 0xa0b8…eb48 answers 6 decimals; WBTC (8 decimals) mints and transfers', async () => {
    const pub = createPublicClient({ chain: mainnet, transport: http(node.url) });
    const usdc = tokenAddress('ethereum', 'USDC');
    expect(usdc.toLowerCase()).toBe('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
    expect(await pub.readContract({ address: usdc, abi: devTokenAbi, functionName: 'decimals' })).toBe(6);
    const wbtc = tokenAddress('ethereum', 'WBTC');
    expect(await pub.readContract({ address: wbtc, abi: devTokenAbi, functionName: 'symbol' })).toBe('WBTC');
    expect(await pub.readContract({ address: wbtc, abi: devTokenAbi, functionName: 'decimals' })).toBe(8);
    await mintAndTransfer(node, mainnet, wbtc, 8);
  });

  it('approve then transferFrom spends the allowance and emits Approval and Transfer', async () => {
    const usdc = tokenAddress('ethereum', 'USDC');
    const pub = createPublicClient({ chain: mainnet, transport: http(node.url), pollingInterval: 20 });
    await mintDevToken(node.url, usdc, alice!.address, 500n);
    const asAlice = createWalletClient({ account: alice!, chain: mainnet, transport: http(node.url) });
    const asBob = createWalletClient({ account: bob!, chain: mainnet, transport: http(node.url) });
    const approveReceipt = await pub.waitForTransactionReceipt({
      hash: await asAlice.writeContract({ address: usdc, abi: devTokenAbi, functionName: 'approve', args: [bob!.address, 300n] }),
    });
    expect(parseEventLogs({ abi: devTokenAbi, eventName: 'Approval', logs: approveReceipt.logs })[0]!.args).toEqual({ owner: alice!.address, spender: bob!.address, value: 300n });
    const receipt = await pub.waitForTransactionReceipt({
      hash: await asBob.writeContract({ address: usdc, abi: devTokenAbi, functionName: 'transferFrom', args: [alice!.address, carol!.address, 200n] }),
    });
    expect(parseEventLogs({ abi: devTokenAbi, eventName: 'Transfer', logs: receipt.logs })[0]!.args).toEqual({ from: alice!.address, to: carol!.address, value: 200n });
    expect(await pub.readContract({ address: usdc, abi: devTokenAbi, functionName: 'allowance', args: [alice!.address, bob!.address] })).toBe(100n);
    expect(await pub.readContract({ address: usdc, abi: devTokenAbi, functionName: 'balanceOf', args: [carol!.address] })).toBe(200n);
    await expect(asBob.writeContract({ address: usdc, abi: devTokenAbi, functionName: 'transferFrom', args: [alice!.address, carol!.address, 101n] })).rejects.toThrow(/insufficient allowance/);
  });
});

describe('DevToken: placing one token with a long name at any address', () => {
  let node: AnvilNode;
  beforeAll(async () => {
    node = await startAnvil({ chainId: 1 });
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('reads back a name longer than 31 bytes and a symbol of 18 decimals', async () => {
    const at = getAddress('0x00000000000000000000000000000000000dee01');
    const name = 'A development token whose name is longer than one storage word';
    await placeDevToken(node.url, at, { name, symbol: 'DEV', decimals: 18 });
    const pub = createPublicClient({ chain: mainnet, transport: http(node.url) });
    expect(await pub.readContract({ address: at, abi: devTokenAbi, functionName: 'name' })).toBe(name);
    expect(await pub.readContract({ address: at, abi: devTokenAbi, functionName: 'symbol' })).toBe('DEV');
    expect(await pub.readContract({ address: at, abi: devTokenAbi, functionName: 'decimals' })).toBe(18);
  });
});
