// ETH that contracts move inside a transaction (a smart-contract wallet, a batch payout, a selfdestruct), read from a
// real anvil node's call tracer: what scan reports, what it leaves out (failed calls, reverted transactions, calls
// that move no ETH), when such a deposit has vanished, and a node without the debug API.
import { createServer, type Server } from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, http, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { AnvilNode } from '../../../src/chains/evm/anvil.js';
import { openEvmChain, type EvmChain } from '../../../src/chains/evm/ledger.js';
import { NATIVE_EVM_ADDRESS } from '../../../src/assets/registry.js';
import { createLogger } from '../../../src/log.js';
import { useLedgerOnBase } from './support.js';
import { REVERT_CODE, SELFDESTRUCT_CODE, client, deployCode, fundedAccount, memStore, payerCalldata, payerCode, randomAddress, rpc } from './ledger-support.js';

const NATIVE = `evm:8453.${NATIVE_EVM_ADDRESS}`;

let node: AnvilNode;
let chain: EvmChain;

useLedgerOnBase((s) => ({ node, chain } = s));

/** Sends `value` to `to` with `data` from a fresh account (a fixed gas, so a reverting call is mined, not refused). */
async function call(to: Address, value: bigint, data: Hex = '0x'): Promise<{ hash: Hex; block: number; status: string }> {
  const sender = await fundedAccount(node);
  const wallet = createWalletClient({ account: privateKeyToAccount(sender.key), transport: http(node.url) });
  const hash = await wallet.sendTransaction({ to, value, data, gas: 300_000n, chain: null });
  const receipt = await client(node).waitForTransactionReceipt({ hash });
  return { hash, block: Number(receipt.blockNumber), status: receipt.status };
}

describe('ETH paid by contracts (anvil call tracer)', () => {
  it('a contract paying out inside a transaction: each payment is a deposit from the contract, told apart by its place among the transaction\'s internal transfers', async () => {
    const payer = await deployCode(node, payerCode(2));
    const [a, b] = [randomAddress(), randomAddress()];
    const paid = await call(payer, 300n, payerCalldata([{ to: a, value: 100n }, { to: b, value: 200n }]));
    expect(paid.status).toBe('success');
    const found = await chain.scan(paid.block, paid.block);
    const ours = found.filter((d) => d.txId === paid.hash);
    expect(ours[0]).not.toHaveProperty('callIndex');
    expect(ours).toEqual([
      // The transaction's own value, to the contract, first; then the contract's payments in the order they ran.
      expect.objectContaining({ to: payer, amount: 300n, transferIndex: null }),
      {
        txId: paid.hash, chain: 'base', asset: NATIVE, from: payer, to: a, amount: 100n, block: paid.block, confirmations: 1,
        blockHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), transferIndex: null, callIndex: 0,
      },
      expect.objectContaining({ from: payer, to: b, amount: 200n, callIndex: 1 }),
    ]);
  });

  it('a selfdestruct sends the contract\'s balance to its beneficiary: a deposit', async () => {
    const doomed = await deployCode(node, SELFDESTRUCT_CODE);
    const to = randomAddress();
    const paid = await call(doomed, 5_000n, payerCalldata([{ to, value: 0n }]).slice(0, 66) as Hex);
    const found = (await chain.scan(paid.block, paid.block)).filter((d) => d.to === to);
    expect(found).toEqual([expect.objectContaining({ txId: paid.hash, asset: NATIVE, from: doomed, amount: 5_000n, callIndex: 0 })]);
  });

  it('ETH of a call that failed, or of a transaction that reverted, is no deposit; a later call keeps its place', async () => {
    const rejecter = await deployCode(node, REVERT_CODE);
    const payer = await deployCode(node, payerCode(2));
    const to = randomAddress();
    // The first call fails (its receiver reverts) and the payer goes on: only the second moved ETH.
    const partly = await call(payer, 90n, payerCalldata([{ to: rejecter, value: 40n }, { to, value: 50n }]));
    expect(partly.status).toBe('success');
    const found = (await chain.scan(partly.block, partly.block)).filter((d) => d.txId === partly.hash && d.callIndex !== undefined);
    expect(found).toEqual([expect.objectContaining({ to, amount: 50n, callIndex: 1 })]);

    // The payer reverts after paying: the whole transaction, its payment included, is undone.
    const reverting = await deployCode(node, payerCode(1, 'revert'));
    const undone = await call(reverting, 70n, payerCalldata([{ to, value: 70n }]));
    expect(undone.status).toBe('reverted');
    expect((await chain.scan(undone.block, undone.block)).filter((d) => d.txId === undone.hash)).toEqual([]);
  });

  it('vanished: a contract\'s payment still on the chain has not vanished; one the transaction\'s trace no longer has at its place has, and so has one a reorg dropped', async () => {
    const payer = await deployCode(node, payerCode(1));
    const to = randomAddress();
    const paid = await call(payer, 10n, payerCalldata([{ to, value: 10n }]));
    const [d] = (await chain.scan(paid.block, paid.block)).filter((x) => x.to === to);
    expect(d?.callIndex).toBe(0);
    expect(await chain.vanished([d!])).toEqual([]);
    const elsewhere = { ...d!, callIndex: 3 };
    expect(await chain.vanished([d!, elsewhere])).toEqual([elsewhere]);

    const top = await chain.height();
    await rpc(node, 'anvil_reorg', [1, []]);
    expect(await chain.checkReorg(top)).toEqual(expect.objectContaining({ from: paid.block, depth: 1 }));
    expect(await chain.vanished([d!])).toEqual([d]);
  });
});

describe('a node without the debug API', () => {
  let proxy: Server;
  let url: string;
  beforeAll(async () => {
    // Answers debug_* as a node without the namespace does (method not found) and passes the rest to anvil.
    proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        const { id, method } = JSON.parse(body) as { id: number; method: string };
        if (method.startsWith('debug_')) {
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: `the method ${method} does not exist/is not available` } }));
          return;
        }
        void fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (r) => {
          res.setHeader('content-type', 'application/json');
          res.end(await r.text());
        });
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const address = proxy.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => proxy?.close(resolve));
  });

  it('scan still reports transactions\' own value and logs once, at error, that ETH paid by contracts is not seen', async () => {
    const lines: { level: number; msg: string }[] = [];
    const logger = createLogger('info', new Writable({ write: (chunk, _enc, done) => void (lines.push(JSON.parse(String(chunk)) as { level: number; msg: string }), done()) }));
    const blind = openEvmChain({ chain: 'base', rpcUrl: url, store: memStore(), signers: () => null, logger });
    const payer = await deployCode(node, payerCode(1));
    const to = randomAddress();
    const paid = await call(payer, 10n, payerCalldata([{ to, value: 10n }]));
    for (let i = 0; i < 2; i++) {
      const found = (await blind.scan(paid.block, paid.block)).filter((d) => d.txId === paid.hash);
      expect(found).toEqual([expect.objectContaining({ to: payer, amount: 10n })]);
      expect(found[0]).not.toHaveProperty('callIndex');
    }
    const errors = lines.filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.msg).toMatch(/ETH paid into deposit addresses by contracts is not seen/);
  });

  it('vanished: a contract\'s payment read before (through a node with the debug API) whose transaction is still mined is taken as standing, not refused on every pass; one whose transaction is gone has vanished', async () => {
    const blind = openEvmChain({ chain: 'base', rpcUrl: url, store: memStore(), signers: () => null });
    const payer = await deployCode(node, payerCode(1));
    const to = randomAddress();
    const paid = await call(payer, 10n, payerCalldata([{ to, value: 10n }]));
    const [d] = (await chain.scan(paid.block, paid.block)).filter((x) => x.to === to);
    expect(d?.callIndex).toBe(0);
    expect(await blind.vanished([d!, { ...d!, callIndex: 4 }])).toEqual([]);
    await rpc(node, 'anvil_reorg', [1, []]);
    expect(await blind.vanished([d!])).toEqual([d]);
  });
});
