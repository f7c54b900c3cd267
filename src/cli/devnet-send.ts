// `router devnet send`: pays an address on a devnet chain with a real transaction from a dev account, as a user's
// wallet would (an ERC-20 `transfer` or a native value transfer). DevToken's `mint` is open to anyone on dev chains,
// so a sender short of the token mints the difference to itself first; a sender short of ETH is topped up with
// anvil_setBalance. Prints the transaction hash and its block.
import { parseArgs } from 'node:util';
import { createPublicClient, createWalletClient, erc20Abi, getAddress, http, isAddress, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { parseAmount } from '../assets/amounts.js';
import { findAsset } from '../assets/registry.js';
import { CHAINS } from '../assets/chains.js';
import { CHAIN_NAMES, type ChainName } from '../assets/types.js';
import { rpcCall } from '../chains/evm/anvil.js';
import { devTokenAbi } from '../chains/evm/dev-token.js';
import { DEVNET_USER, devnetRpcUrl } from '../chains/evm/devnet.js';
import type { CliIo } from './admin.js';

export const DEVNET_USAGE = `usage: router devnet send --chain <chain> --asset <symbol> --to <address> --amount <whole units> [--from-key 0x…] [--rpc <url>]
  Sends <amount> whole units (e.g. 25 or 0.5) of the registry asset from a dev account (default: anvil's third,
  ${DEVNET_USER.address}) on a devnet chain (default URL: the chain's devnet port on 127.0.0.1).`;

export async function runDevnet(args: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = args;
  if (command !== 'send') {
    io.err(`${command ? `unknown devnet command "${command}"` : 'missing devnet command'}\n${DEVNET_USAGE}`);
    return 2;
  }
  let values: Record<string, string | undefined>;
  try {
    values = parseArgs({
      args: rest,
      options: {
        chain: { type: 'string' },
        asset: { type: 'string' },
        to: { type: 'string' },
        amount: { type: 'string' },
        'from-key': { type: 'string' },
        rpc: { type: 'string' },
      },
      strict: true,
    }).values;
  } catch (e) {
    io.err(`${(e as Error).message}\n${DEVNET_USAGE}`);
    return 2;
  }
  const fail = (message: string): number => {
    io.err(`${message}\n${DEVNET_USAGE}`);
    return 2;
  };
  const chain = values.chain as ChainName | undefined;
  if (!chain || !CHAIN_NAMES.includes(chain) || CHAINS[chain].kind !== 'evm') return fail(`--chain must name an EVM chain of the registry`);
  const asset = values.asset ? findAsset(chain, values.asset) : undefined;
  if (!asset) return fail(`--asset: no asset "${values.asset ?? ''}" on ${chain} in the registry`);
  if (!values.to || !isAddress(values.to, { strict: false })) return fail('--to must be an EVM address');
  const to = getAddress(values.to);
  let amount: bigint;
  try {
    amount = parseAmount(values.amount ?? '', asset, 'formatted', '--amount');
  } catch (err) {
    return fail(`${(err as Error).message} (whole ${asset.symbol})`);
  }
  const key = (values['from-key'] ?? DEVNET_USER.privateKey) as Hex;
  if (!/^0x[0-9a-fA-F]{64}$/.test(key)) return fail('--from-key must be 0x and 64 hex digits');
  const url = values.rpc ?? devnetRpcUrl(chain);
  if (!url) return fail(`--rpc is needed: ${chain} is not a devnet chain`);

  const account = privateKeyToAccount(key);
  const transport = http(url);
  const pub = createPublicClient({ transport, pollingInterval: 50 });
  const wallet = createWalletClient({ account, transport });
  const chainId = await pub.getChainId();
  if (chainId !== CHAINS[chain].evmChainId) return fail(`the node at ${url} is chain ${chainId}, ${chain} is ${CHAINS[chain].evmChainId}`);

  let hash: Hex;
  if (asset.native || asset.address === null) {
    const balance = await pub.getBalance({ address: account.address });
    // Headroom for the gas of the transfer itself.
    const need = amount + 10n ** 16n;
    if (balance < need) await rpcCall(url, 'anvil_setBalance', [account.address, `0x${need.toString(16)}`]);
    hash = await wallet.sendTransaction({ chain: null, to, value: amount });
  } else {
    const token = getAddress(asset.address);
    const held = await pub.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [account.address] });
    if (held < amount) {
      const mint = await wallet.writeContract({ chain: null, address: token, abi: devTokenAbi, functionName: 'mint', args: [account.address, amount - held] });
      const minted = await pub.waitForTransactionReceipt({ hash: mint });
      if (minted.status !== 'success') {
        io.err(`mint of ${amount - held} ${asset.symbol} to ${account.address} reverted (${mint})`);
        return 1;
      }
      io.err(`minted ${amount - held} base units of ${asset.symbol} to ${account.address} (${mint})`);
    }
    hash = await wallet.writeContract({ chain: null, address: token as Address, abi: erc20Abi, functionName: 'transfer', args: [to, amount] });
  }
  const receipt = await pub.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') {
    io.err(`transaction ${hash} reverted in block ${receipt.blockNumber}`);
    return 1;
  }
  io.out(`tx ${hash}\nblock ${receipt.blockNumber}`);
  return 0;
}
