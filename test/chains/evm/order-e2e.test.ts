// A Family A order on a real EVM chain, end to end: the embedded service with ROUTER_EVM_RPC_BASE pointing at an
// anvil node, a user paying the deposit address with a real ERC-20 transfer, the router sweeping it (gas from its
// gas account) and paying out from its treasury with real transactions, while venues stay simulated.
import { describe, expect, it } from 'vitest';
import {
  createPublicClient,
  createWalletClient,
  decodeEventLog,
  encodeAbiParameters,
  erc20Abi,
  getAddress,
  http,
  keccak256,
  numberToHex,
  pad,
  type Address,
  type Hex,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { runAudit } from '../../../src/orders/audit-run.js';
import { renderAudit } from '../../../src/cli/audit.js';
import { auditJson } from '../../../src/orders/audit.js';
import { parseAmount, parseChainAsset } from '../../../src/assets/index.js';
import { ANVIL_ACCOUNTS, rpcCall, type AnvilNode } from '../../../src/chains/evm/anvil.js';
import { DEV_TOKEN_SLOTS, devTokenAbi } from '../../../src/chains/evm/dev-token.js';
import type { RunningService } from '../../support/service.js';
import { BASE_USDC as USDC, BASE_USDT as USDT, DEV_ROLES, devClients, untilOrderStatus, useServiceOnBase } from './support.js';

const TREASURY = ANVIL_ACCOUNTS[0]!;
const USER = DEV_ROLES.user;

let node: AnvilNode;
let svc: RunningService;
useServiceOnBase((s) => ({ node, svc } = s));


describe('a Family A order on a real base node: deposit, sweep and payout are real transactions', () => {
  it('base.usdc → base.usdt reaches delivered; the destination receives exactly amount_out on chain', async () => {
    const clients = devClients(node.url, USER.privateKey);
    const { pub, user } = clients;
    const destination = getAddress(privateKeyToAccount(generatePrivateKey()).address);

    const q = await svc.post('/quote', { from: 'base.usdc', to: 'base.usdt', from_amount: '25', return_full_route: true });
    expect(q.status).toBe(200);
    const o = await svc.post('/order', { quote_id: q.body.id, to_address: destination });
    expect(o.status).toBe(201);
    const deposit = o.body.deposit_address as Address;
    const amountIn = parseAmount('25', parseChainAsset('base.usdc', 'from'), 'formatted', 'from_amount');

    // The dev listener refuses a simulated deposit on a real chain.
    const refused = await svc.post(`${svc.devUrl}/deposits`, { to: deposit, asset: 'base.usdc', amount: '25', from: USER.address });
    expect(refused.status).toBe(400);

    const mint = await user.writeContract({ chain: null, address: USDC, abi: devTokenAbi, functionName: 'mint', args: [user.account.address, amountIn] });
    await pub.waitForTransactionReceipt({ hash: mint });
    const before = await pub.readContract({ address: USDT, abi: erc20Abi, functionName: 'balanceOf', args: [destination] });
    // anvil mines on submission, so the deposit's block exists once the call returns.
    const pay = await user.writeContract({ chain: null, address: USDC, abi: erc20Abi, functionName: 'transfer', args: [deposit, amountIn] });
    const depositMinedAt = Date.now();
    const depositReceipt = await pub.waitForTransactionReceipt({ hash: pay });
    expect(depositReceipt.status).toBe('success');

    const done = await untilOrderStatus(svc, o.body.id, ['delivered', 'stalled', 'frozen', 'failed', 'refunded'], 20_000);
    expect(done.status).toBe('delivered');
    expect(done.refund_address?.toLowerCase()).toBe(USER.address.toLowerCase());

    // The payout: its bookkeeping transfer answers the real transaction hash.
    const [payout] = await svc.service.chains.transfers({ key: `${o.body.id}:deliver` });
    expect(payout).toBeDefined();
    expect(payout!.txId).toMatch(/^0x[0-9a-f]{64}$/);
    const receipt = await pub.getTransactionReceipt({ hash: payout!.txId as Hex });
    expect(receipt.status).toBe('success');
    expect(receipt.from.toLowerCase()).toBe(TREASURY.address.toLowerCase());
    const transfers = receipt.logs
      .filter((l) => l.address.toLowerCase() === USDT.toLowerCase())
      .map((l) => decodeEventLog({ abi: erc20Abi, data: l.data, topics: l.topics }))
      .filter((e) => e.eventName === 'Transfer');
    expect(transfers).toHaveLength(1);
    const amountOut = parseAmount(done.amount_out, parseChainAsset('base.usdt', 'to'), 'formatted', 'amount_out');
    expect(transfers[0]!.args).toMatchObject({ to: destination, value: amountOut });

    const after = await pub.readContract({ address: USDT, abi: erc20Abi, functionName: 'balanceOf', args: [destination] });
    expect(after - before).toBe(amountOut);
    // Swept: the deposit address sent all of its USDC (step cost and venue input) to the treasury.
    expect(await pub.readContract({ address: USDC, abi: erc20Abi, functionName: 'balanceOf', args: [deposit] })).toBe(0n);
    // Its gas came from the gas account, just enough per send: what is left is dust, far below one top-up's worth.
    const dust = await pub.getBalance({ address: deposit });
    expect(dust).toBeLessThan(10n ** 15n);
    // The books agree: the deposit address holds nothing, the destination what it received.
    expect(await svc.service.chains.balanceOf('base', deposit, parseChainAsset('base.usdc', 'from').id)).toBe(0n);

    // The money audit reads the same books with the real hashes: the deposit, the legs and the payout all line up.
    const report = await runAudit({ store: svc.service.store, chains: svc.service.chains, recheck: { times: 2, delayMs: 200 } });
    expect(report.findings).toEqual([]);
    expect(report.clean).toBe(true);

    // The audit also reads the chain: the deposit address's USDC on the node beside its balance in the books. Writing
    // its DevToken balance slot straight (no Transfer log, so the deposit feed never books it) makes the chain hold
    // 7 USDC the books do not: a finding naming both sides. Writing 0 back makes the audit clean again.
    const usdc = parseChainAsset('base.usdc', 'from').id;
    const balanceSlot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [deposit, DEV_TOKEN_SLOTS.balanceOf]));
    const setDepositUsdc = (v: bigint) => rpcCall(node.url, 'anvil_setStorageAt', [USDC, balanceSlot, pad(numberToHex(v), { size: 32 })]);
    await setDepositUsdc(7_000_000n);
    expect(await pub.readContract({ address: USDC, abi: erc20Abi, functionName: 'balanceOf', args: [deposit] })).toBe(7_000_000n);
    const off = await runAudit({ store: svc.service.store, chains: svc.service.chains, recheck: { times: 0, delayMs: 0 } });
    expect(off.clean).toBe(false);
    expect(off.findings).toEqual([
      { kind: 'onchain_mismatch', order: o.body.id, chain: 'base', asset: usdc, address: deposit, onChain: 7_000_000n, books: 0n },
    ]);
    await setDepositUsdc(0n);
    const again = await runAudit({ store: svc.service.store, chains: svc.service.chains, recheck: { times: 0, delayMs: 0 } });
    expect(again.findings).toEqual([]);
    expect(again.clean).toBe(true);

    const blockOf = async (n: bigint) => (await pub.getBlock({ blockNumber: n })).number;
    const blocks = (await blockOf(receipt.blockNumber)) - (await blockOf(depositReceipt.blockNumber));
    console.log(
      `deposit block ${depositReceipt.blockNumber} → payout receipt in block ${receipt.blockNumber} (${blocks} blocks later): ` +
        `${payout!.at - depositMinedAt} ms (payout booked after its receipt); ETH dust left on the deposit address: ${dust} wei`,
    );
  }, 30_000);

  it('the audit reconciles the treasury and the gas account with the books; an out-of-band transfer from either is named', async () => {
    const pub = createPublicClient({ transport: http(node.url), pollingInterval: 50 });
    const usdc = parseChainAsset('base.usdc', 'from').id;
    const eth = parseChainAsset('base.eth', 'from').id;
    const clean = await runAudit({ store: svc.service.store, chains: svc.service.chains, recheck: { times: 2, delayMs: 200 } });
    expect(clean.clean).toBe(true);
    // After the order above: the treasury per asset of base (ETH and every token) and the gas account, all at 0.
    const treasuryUsdc = clean.accounts.find((a) => a.role === 'treasury' && a.asset === usdc)!;
    expect(treasuryUsdc).toMatchObject({ chain: 'base', address: TREASURY.address.toLowerCase(), difference: 0n, inFlight: 0n });
    // The order's USDC swept in (cost and venue input) is what the books' internal accounts gained.
    expect(treasuryUsdc.booked).toBe(parseAmount('25', parseChainAsset('base.usdc', 'from'), 'formatted', 'from_amount'));
    const treasuryEth = clean.accounts.find((a) => a.role === 'treasury' && a.asset === eth)!;
    expect(treasuryEth.fees).toBeGreaterThan(0n); // the payout's gas
    const gas = clean.accounts.find((a) => a.role === 'gas')!;
    expect(gas).toMatchObject({ asset: eth, difference: 0n });
    expect(gas.booked).toBeLessThan(0n); // the deposit address's two top-ups
    expect(gas.fees).toBeGreaterThan(0n);
    expect(clean.accounts.every((a) => a.difference === 0n)).toBe(true);

    // 3 USDC leave the treasury by a transaction the router never made: the treasury's USDC row names it.
    const stranger = getAddress(privateKeyToAccount(generatePrivateKey()).address);
    const treasuryWallet = createWalletClient({ account: privateKeyToAccount(TREASURY.privateKey as Hex), transport: http(node.url) });
    const theft = await treasuryWallet.writeContract({ chain: null, address: USDC, abi: erc20Abi, functionName: 'transfer', args: [stranger, 3_000_000n] });
    await pub.waitForTransactionReceipt({ hash: theft });
    const off = await runAudit({ store: svc.service.store, chains: svc.service.chains, recheck: { times: 0, delayMs: 0 } });
    expect(off.clean).toBe(false);
    expect(off.findings).toEqual([]);
    const differing = off.accounts.filter((a) => a.difference !== 0n);
    // The USDC itself, and the ETH its gas cost the treasury.
    expect(differing.map((a) => `${a.role} ${a.asset}`).sort()).toEqual([`treasury ${eth}`, `treasury ${usdc}`].sort());
    expect(differing).toHaveLength(2);
    expect(differing.find((a) => a.asset === usdc)!.difference).toBe(-3_000_000n);
    expect(renderAudit(auditJson(off))).toMatch(/treasury +0x[0-9a-f]{40} +base\.USDC .* -3000000 \(-3\) {2}<- not 0/);

    // The gas account pays a stranger 1 ETH out of band: its row differs by that and the transaction's gas.
    const gasWallet = createWalletClient({ account: privateKeyToAccount(DEV_ROLES.gas.privateKey as Hex), transport: http(node.url) });
    const leak = await gasWallet.sendTransaction({ chain: null, to: stranger, value: 10n ** 18n });
    const leakReceipt = await pub.waitForTransactionReceipt({ hash: leak });
    const gasOff = (await runAudit({ store: svc.service.store, chains: svc.service.chains, recheck: { times: 0, delayMs: 0 } })).accounts.find((a) => a.role === 'gas')!;
    expect(gasOff.difference).toBe(-(10n ** 18n) - leakReceipt.gasUsed * leakReceipt.effectiveGasPrice);
  }, 30_000);
});
