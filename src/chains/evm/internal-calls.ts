// ETH that contracts move inside a transaction (a smart-contract wallet paying out, a batch payout, a selfdestruct):
// no transaction carries it as its own value, so it is read from the node's call tracer (geth's `callTracer`, which
// geth, reth, erigon, nethermind and anvil serve as `debug_traceBlockByHash` / `debug_traceTransaction`).
import type { Hex, PublicClient } from 'viem';
import { Unavailable } from '../../errors.js';

/** One frame of a `callTracer` trace: the transaction's own call at the top, the calls it made below. */
export interface CallFrame {
  type: string;
  from: string;
  to?: string;
  /** Hex wei; absent on frames that move no value (STATICCALL, and DELEGATECALL on some nodes). */
  value?: string;
  /** Set when the frame failed (reverted, out of gas): what it and every frame below it moved is undone. */
  error?: string;
  calls?: CallFrame[];
}

/** A transfer of ETH made by a contract inside a transaction that kept it. */
export interface InternalValueCall {
  from: string;
  to: string;
  amount: bigint;
  /** Its place among the transaction's internal value transfers, in the order they ran (0, 1, …). Failed ones are
   *  counted too, so a transfer keeps its place when the transaction, mined again, fails in an earlier call. */
  index: number;
}

/** Frame types that move the frame's value from `from` to `to`. DELEGATECALL and CALLCODE run other code in the
 *  caller's own account (no ETH changes hands), STATICCALL moves none. */
const MOVES_VALUE = new Set(['CALL', 'CREATE', 'CREATE2', 'SELFDESTRUCT']);

/**
 * The ETH transfers contracts made below a transaction's own call that still stand: a frame moved value and neither
 * it nor any frame above it (the transaction included) failed. The transaction's own value is not among them: it is
 * read from the transaction.
 */
export function internalValueCalls(root: CallFrame): InternalValueCall[] {
  const out: InternalValueCall[] = [];
  let index = 0;
  const walk = (frame: CallFrame, undone: boolean): void => {
    for (const call of frame.calls ?? []) {
      const failed = undone || call.error !== undefined;
      const amount = call.value === undefined ? 0n : BigInt(call.value);
      if (MOVES_VALUE.has(call.type.toUpperCase()) && amount > 0n && call.to) {
        if (!failed) out.push({ from: call.from.toLowerCase(), to: call.to.toLowerCase(), amount, index });
        index++;
      }
      walk(call, failed);
    }
  };
  walk(root, root.error !== undefined);
  return out;
}

type TraceOptions = { tracer: 'callTracer' };
const CALL_TRACER: TraceOptions = { tracer: 'callTracer' };

/** The traces of a block's transactions (`txHashes`, in the block's order), by transaction hash (lower case). The
 *  block is named by its hash, so the traces are of the very block whose transactions were read. */
export async function traceBlock(client: PublicClient, blockHash: Hex, txHashes: readonly Hex[]): Promise<Map<string, CallFrame>> {
  const traces = await client.request<{ Parameters: [Hex, TraceOptions]; ReturnType: { txHash?: Hex; result: CallFrame }[] }>({
    method: 'debug_traceBlockByHash',
    params: [blockHash, CALL_TRACER],
  });
  if (traces.length !== txHashes.length) {
    throw new Unavailable(`debug_traceBlockByHash(${blockHash}) answered ${traces.length} traces for ${txHashes.length} transactions.`);
  }
  const byHash = new Map<string, CallFrame>();
  traces.forEach((t, i) => {
    // Nodes that name each trace's transaction are checked against the block; older geth answers them in order only.
    const hash = txHashes[i]!.toLowerCase();
    if (t.txHash !== undefined && t.txHash.toLowerCase() !== hash) {
      throw new Unavailable(`debug_traceBlockByHash(${blockHash}) answered trace ${i} for ${t.txHash}, not ${hash}.`);
    }
    byHash.set(hash, t.result);
  });
  return byHash;
}

/** One transaction's trace. */
export function traceTransaction(client: PublicClient, hash: Hex): Promise<CallFrame> {
  return client.request<{ Parameters: [Hex, TraceOptions]; ReturnType: CallFrame }>({ method: 'debug_traceTransaction', params: [hash, CALL_TRACER] });
}
