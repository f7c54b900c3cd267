// Every transfer into an address on a real chain, read from the node's blocks once: per chain, the transfers of
// blocks 0..upTo read so far and the hash of block upTo. A block's hash commits to every block before it, so while
// block upTo is still canonical nothing read is stale and only the blocks since are read; when it is not (a reorg),
// everything is read again. A watch asks on every new block, and a dev node grows by hundreds of blocks per
// simulated bitcoin block: reading the whole chain each time grew without end.
import type { ChainName } from '../assets/types.js';
import { confirmationsAt } from './blocks.js';
import { ChainMoved } from './evm/errors.js';
import { blockHashOrNull, type EvmDeposit } from './evm/deposit-scan.js';
import type { EvmChain } from './evm/ledger.js';
import { depositIds, portDeposit } from './real-deposits.js';
import type { Deposit } from './types.js';

/** Reads of the transfers in a row a moving chain may take before the caller hears ChainMoved and asks later. */
const MAX_READS = 3;

export class RealDepositsTo {
  private readonly read = new Map<ChainName, { upTo: number; upToHash: string; found: EvmDeposit[] }>();

  /** `gasAccount`'s top-ups are left out: they are no transfer of the port (nothing books them), so a watch on a
   *  deposit address must not report the router's own gas as a deposit. */
  constructor(private readonly gasAccount: string) {}

  /** Every transfer into `address` from block `sinceBlock` (default 0), read from the node (the blocks since the last
   *  call only). It books nothing. */
  async depositsTo(evm: EvmChain, address: string, sinceBlock = 0): Promise<Deposit[]> {
    const a = address.toLowerCase();
    const { tip, found } = await this.transfersOn(evm);
    const mine = found.filter((d) => d.block >= sinceBlock && d.to === a && d.from !== this.gasAccount);
    const ids = depositIds(mine);
    return mine.map((d, i) => ({ ...portDeposit(d), confirmations: confirmationsAt(tip, d.block), txId: ids[i]! }));
  }

  private async transfersOn(evm: EvmChain, attempt = 1): Promise<{ tip: number; found: EvmDeposit[] }> {
    const tip = await evm.height();
    let read = this.read.get(evm.chain);
    // A node answering below the blocks read already is behind its peers (or replacing blocks): it proves no reorg,
    // and reading the whole chain again on its word would be for nothing.
    if (read && tip < read.upTo) {
      throw new ChainMoved(`${evm.chain}: the node answers height ${tip}, below block ${read.upTo} read before (a node behind, or one replacing blocks); read again.`);
    }
    const tipHash = await blockHashOrNull(evm.client, tip);
    // No new block: block upTo is the tip, whose hash was just read.
    const upToHash = read ? (read.upTo === tip ? tipHash : await blockHashOrNull(evm.client, read.upTo)) : null;
    if (read && upToHash !== read.upToHash) read = undefined;
    if (read && read.upTo === tip) return { tip, found: read.found };
    const more = await evm.scan(read ? read.upTo + 1 : 0, tip);
    // Block `tip` the same before and after the scan: the blocks read are its ancestors, and so is block upTo, checked
    // in between. Otherwise the chain was replaced under the reads: read again.
    if (tipHash === null || (await blockHashOrNull(evm.client, tip)) !== tipHash) {
      if (attempt >= MAX_READS) throw new ChainMoved(`${evm.chain}: the chain moved under ${MAX_READS} reads in a row; read again.`);
      return this.transfersOn(evm, attempt + 1);
    }
    const found = [...(read?.found ?? []), ...more];
    this.read.set(evm.chain, { upTo: tip, upToHash: tipHash, found });
    return { tip, found };
  }
}
