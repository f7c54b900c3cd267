// Putting signed bytes before a node, and reading back which of a key's transactions (the first or a replacement)
// was mined. A broadcast never throws: its outcome is classified (rpc.ts), so callers decide what each one means.
import type { Hex, PublicClient, TransactionReceipt } from 'viem';
import { latestRaw, outboxHashes, type OutboxEntry } from './outbox.js';
import { classifyBroadcastError, receiptOrNull, type BroadcastOutcome } from './rpc.js';

export interface Broadcaster {
  raw(raw: Hex): Promise<BroadcastOutcome>;
  /** The entry's latest bytes: its last replacement, or the transaction first signed. */
  entry(entry: OutboxEntry): Promise<BroadcastOutcome>;
  /** The receipt of whichever of the key's transactions was mined, or null. */
  minedReceipt(entry: OutboxEntry): Promise<TransactionReceipt | null>;
}

export function broadcaster(client: PublicClient): Broadcaster {
  async function raw(bytes: Hex): Promise<BroadcastOutcome> {
    try {
      await client.sendRawTransaction({ serializedTransaction: bytes });
      return { kind: 'accepted' };
    } catch (err) {
      return classifyBroadcastError(err);
    }
  }
  return {
    raw,
    entry: (entry) => raw(latestRaw(entry)),
    async minedReceipt(entry) {
      for (const hash of outboxHashes(entry)) {
        const r = await receiptOrNull(client, hash);
        if (r) return r;
      }
      return null;
    },
  };
}
