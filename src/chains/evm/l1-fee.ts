// The L1 data fee of OP Stack rollups (base, ink): beside its gas, every transaction pays for the bytes it puts on L1,
// and the sequencer refuses one whose sender cannot pay gas at its fee cap, its value and that fee together. The fee
// is read from the chain's gas price oracle predeploy for the transaction's serialized bytes. A node without the
// oracle (anvil, a dev chain) charges none.
import { BaseError, ContractFunctionZeroDataError, parseAbi, serializeTransaction, type Address, type Hex, type PublicClient, type TransactionReceipt } from 'viem';

/** The OP Stack `GasPriceOracle` predeploy, the same address on every OP Stack chain. */
export const GAS_PRICE_ORACLE: Address = '0x420000000000000000000000000000000000000F';
const ORACLE_ABI = parseAbi(['function getL1Fee(bytes _data) view returns (uint256)']);

/** The L1 data fee of such a transaction, in wei: 0 where the node has no oracle. Throws what the read throws
 *  otherwise (an unreachable node), so no transaction is signed on a guess. */
export async function opStackL1Fee(client: PublicClient, chainId: number, tx: { to: Address; value: bigint; data?: Hex; gas: bigint }): Promise<bigint> {
  // Stand-in fees and nonce: the fee depends on the bytes' length and zeros, which these barely change.
  const bytes = serializeTransaction({
    chainId, type: 'eip1559', to: tx.to, value: tx.value, gas: tx.gas, nonce: 1, maxFeePerGas: 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n,
    ...(tx.data ? { data: tx.data } : {}),
  });
  try {
    return await client.readContract({ address: GAS_PRICE_ORACLE, abi: ORACLE_ABI, functionName: 'getL1Fee', args: [bytes] });
  } catch (err) {
    if (err instanceof BaseError && err.walk((e) => e instanceof ContractFunctionZeroDataError)) return 0n;
    throw err;
  }
}

/** The L1 data fee an OP Stack node reports in a receipt (`l1Fee`, beside the standard fields), else 0. */
export function receiptL1Fee(receipt: TransactionReceipt): bigint {
  // viem keeps a field it does not format as the node wrote it: a hex quantity.
  const fee: unknown = 'l1Fee' in receipt ? receipt.l1Fee : undefined;
  return typeof fee === 'string' && fee.startsWith('0x') ? BigInt(fee) : 0n;
}
