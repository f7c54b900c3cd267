// Reading viem's errors: whether the node answered (a JSON-RPC error, its message the reason) or the request never
// got an answer (timeout, refused connection, HTTP failure), which is worth retrying with the same bytes.
import { BaseError, RpcRequestError, type Address, type Hex, type PublicClient, type TransactionReceipt } from 'viem';

/** The node's JSON-RPC error in the chain of causes, or null when the node never answered. */
export function rpcError(err: unknown): RpcRequestError | null {
  if (!(err instanceof BaseError)) return null;
  const found = err.walk((e) => e instanceof RpcRequestError);
  return found instanceof RpcRequestError ? found : null;
}

/** The node's own words (`details` of the JSON-RPC error), else the message. */
export function rpcReason(err: unknown): string {
  const rpc = rpcError(err);
  if (rpc) return rpc.details || rpc.shortMessage;
  if (err instanceof BaseError) return err.shortMessage;
  return err instanceof Error ? err.message : String(err);
}

/** Nodes spell "I have this transaction already" differently: anvil, geth, erigon, nethermind, reth. */
const ALREADY_KNOWN = /already (known|imported)|known transaction|alreadyknown|already in (the )?(mem)?pool/i;
const NONCE_TOO_LOW = /nonce too low|nonce has already been used|oldnonce|nonce.*(is )?lower than/i;

/** A node's refusal of a transaction for its fees (geth, anvil, reth wordings). */
export const FEE_TOO_LOW = /underpriced|fee per gas less than|fee cap less than|max fee per gas|base fee/i;

export type BroadcastOutcome =
  | { kind: 'accepted' }
  | { kind: 'known' }
  | { kind: 'nonce-too-low'; reason: string }
  | { kind: 'rejected'; reason: string }
  | { kind: 'unreachable'; reason: string };

export function classifyBroadcastError(err: unknown): BroadcastOutcome {
  const rpc = rpcError(err);
  if (!rpc) return { kind: 'unreachable', reason: rpcReason(err) };
  const reason = rpcReason(err);
  if (ALREADY_KNOWN.test(reason)) return { kind: 'known' };
  if (NONCE_TOO_LOW.test(reason)) return { kind: 'nonce-too-low', reason };
  return { kind: 'rejected', reason };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Runs `fn` over `items` with at most `limit` in flight; results in input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** An address as the router keeps it: lower case (nodes answer checksummed ones). */
export function lowerAddress(a: string): Address {
  return a.toLowerCase() as Address;
}

/** The receipt of a transaction, or null while the node has none. */
export async function receiptOrNull(client: PublicClient, hash: Hex): Promise<TransactionReceipt | null> {
  try {
    return await client.getTransactionReceipt({ hash });
  } catch (err) {
    if (err instanceof Error && err.name === 'TransactionReceiptNotFoundError') return null;
    throw err;
  }
}
