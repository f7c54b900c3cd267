// A real anvil process per test group: the asked chain id on a free loopback port, clean stops, and a pause that
// makes the node stop answering without losing its port or state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, http } from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { ANVIL_ACCOUNTS, ANVIL_MNEMONIC, ANVIL_PRIVATE_KEYS, anvilBinary, rpcCall, startAnvil, type AnvilNode } from '../../../src/chains/evm/anvil.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('anvil: the binary of the npm platform package', () => {
  it('resolves to an executable file of @foundry-rs/anvil-linux-amd64', () => {
    expect(anvilBinary()).toMatch(/@foundry-rs\/anvil-linux-amd64\/bin\/anvil$/);
  });

  it('the exported dev accounts are the first accounts of the dev mnemonic, with their keys', () => {
    expect(ANVIL_PRIVATE_KEYS).toHaveLength(ANVIL_ACCOUNTS.length);
    ANVIL_ACCOUNTS.forEach((a, i) => {
      expect(privateKeyToAccount(a.privateKey).address).toBe(a.address);
      expect(mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: i }).address).toBe(a.address);
    });
  });
});

describe('anvil: a node on a free port answers the asked chain id', () => {
  let node: AnvilNode;
  beforeAll(async () => {
    node = await startAnvil({ chainId: 1 });
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('listens on loopback with the chain id of Ethereum and funds the dev accounts', async () => {
    expect(node.url).toBe(`http://127.0.0.1:${node.port}`);
    expect(node.chainId).toBe(1);
    const client = createPublicClient({ transport: http(node.url) });
    expect(await client.getChainId()).toBe(1);
    expect(await client.getBalance({ address: ANVIL_ACCOUNTS[0].address })).toBe(10_000n * 10n ** 18n);
    const accounts = await rpcCall<string[]>(node.url, 'eth_accounts');
    expect(accounts.map((a) => a.toLowerCase())).toEqual(expect.arrayContaining(ANVIL_ACCOUNTS.map((a) => a.address.toLowerCase())));
  });

  it('automines: a transaction is in a block at once', async () => {
    const client = createPublicClient({ transport: http(node.url), pollingInterval: 20 });
    const before = await client.getBlockNumber({ cacheTime: 0 });
    const t0 = Date.now();
    const hash = await rpcCall<`0x${string}`>(node.url, 'eth_sendTransaction', [{ from: ANVIL_ACCOUNTS[0].address, to: ANVIL_ACCOUNTS[1].address, value: '0x1' }]);
    const receipt = await client.waitForTransactionReceipt({ hash });
    expect(receipt.blockNumber).toBe(before + 1n);
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  it('a second node on a port in use fails to start instead of passing on the first node\'s answer', async () => {
    await expect(startAnvil({ chainId: 1, port: node.port, startTimeoutMs: 5_000 })).rejects.toThrow(`port ${node.port} on 127.0.0.1 is not free`);
  });
});

describe('anvil: the base chain id, interval mining', () => {
  it('answers 8453 and mines on its own every block time', async () => {
    const node = await startAnvil({ chainId: 8453, blockTimeSec: 1 });
    try {
      const client = createPublicClient({ transport: http(node.url) });
      expect(await client.getChainId()).toBe(8453);
      const first = await client.getBlockNumber({ cacheTime: 0 });
      await new Promise((r) => setTimeout(r, 2_200));
      expect(await client.getBlockNumber({ cacheTime: 0 })).toBeGreaterThan(first);
    } finally {
      await node.stop();
    }
  });
});

describe('anvil: stop, kill, pause and resume', () => {
  it('stop ends the process and frees the port', async () => {
    const node = await startAnvil({ chainId: 1 });
    const pid = node.child.pid!;
    expect(alive(pid)).toBe(true);
    await node.stop();
    expect(alive(pid)).toBe(false);
    await expect(rpcCall(node.url, 'eth_chainId', [], 1_000)).rejects.toThrow();
    await node.stop(); // idempotent
  });

  it('kill ends the process at once, as a crash', async () => {
    const node = await startAnvil({ chainId: 1 });
    const pid = node.child.pid!;
    const exited = new Promise((r) => node.child.once('exit', r));
    node.kill();
    await exited;
    expect(node.child.signalCode).toBe('SIGKILL');
    expect(alive(pid)).toBe(false);
  });

  it('a paused node makes requests time out, keeps its state and answers again once resumed', async () => {
    const node = await startAnvil({ chainId: 1 });
    try {
      await rpcCall(node.url, 'evm_mine');
      const height = await rpcCall<string>(node.url, 'eth_blockNumber');
      await node.pause();
      const t0 = Date.now();
      await expect(rpcCall(node.url, 'eth_blockNumber', [], 500)).rejects.toThrow(/timeout|aborted/i);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(450);
      node.resume();
      expect(await rpcCall<string>(node.url, 'eth_blockNumber', [], 2_000)).toBe(height);
    } finally {
      await node.stop();
    }
  });

  it('stop also ends a paused node', async () => {
    const node = await startAnvil({ chainId: 1 });
    const pid = node.child.pid!;
    await node.pause();
    await node.stop();
    expect(alive(pid)).toBe(false);
  });

  it('an anvil that exits at startup fails with its stderr in the error', async () => {
    // anvil rejects a mnemonic with unknown words on stderr and exits with 1.
    await expect(startAnvil({ chainId: 1, mnemonic: 'not a mnemonic', startTimeoutMs: 5_000 })).rejects.toThrow(/exited with 1[\s\S]*the word `not` is invalid/);
  });

  it('a missing binary fails with the spawn error', async () => {
    await expect(startAnvil({ chainId: 1, bin: '/nonexistent/anvil', startTimeoutMs: 2_000 })).rejects.toThrow(/ENOENT|exited/);
  });
});
