// The most one order may take in, per source asset (ROUTER_ORDER_MAX_DEPOSIT): an order for more is refused at
// creation, before its quote is bound; deposits adding up to more freeze the order for an operator (order.machine's
// `overLimit`). An asset without a limit takes any amount.
import { parseAmount, parseChainAsset, writeAmount, writeAsset } from '../assets/index.js';
import { assetById } from '../assets/registry.js';
import type { AssetId } from '../assets/types.js';
import { AmountAboveLimit, ConfigError, RouterError } from '../errors.js';
import type { Quote } from '../quotes/types.js';

export type DepositLimits = ReadonlyMap<AssetId, bigint>;

export const NO_LIMITS: DepositLimits = new Map();

/** Reads `chain.symbol=amount` pairs separated by commas (`base.usdc=100000,bitcoin.btc=2.5`), amounts in whole units
 *  of the asset as Family A writes them. @throws ConfigError naming `name` and the pair. */
export function parseDepositLimits(name: string, raw: string | undefined): DepositLimits {
  const limits = new Map<AssetId, bigint>();
  if (raw === undefined || raw.trim() === '') return limits;
  for (const part of raw.split(',')) {
    const [asset, amount, extra] = part.trim().split('=');
    if (asset === undefined || amount === undefined || extra !== undefined) {
      throw new ConfigError(`${name} must list chain.symbol=amount pairs separated by commas, got "${part.trim()}".`);
    }
    try {
      const a = parseChainAsset(asset.trim(), 'asset');
      if (limits.has(a.id)) throw new ConfigError(`${name} names ${asset.trim()} twice.`);
      limits.set(a.id, parseAmount(amount.trim(), a, 'formatted', 'amount'));
    } catch (err) {
      if (err instanceof ConfigError || !(err instanceof RouterError)) throw err;
      throw new ConfigError(`${name}: "${part.trim()}": ${err.message}`);
    }
  }
  return limits;
}

/** The limit of the asset an order sells; null = none. */
export function limitOf(limits: DepositLimits, asset: AssetId): bigint | null {
  return limits.get(asset) ?? null;
}

/**
 * Refuses an order whose quote sells more than its asset's limit, or (exact output) accepts deposits up to `maxIn`
 * above it: the order would take such a deposit in and then freeze on it, after the client paid what it was told it
 * may. @throws AmountAboveLimit
 */
export function assertWithinLimit(limits: DepositLimits, quote: Pick<Quote, 'id' | 'route'>, maxIn: bigint | null = null): void {
  if (limits.size === 0) return;
  const limit = limitOf(limits, quote.route.from);
  const takes = maxIn !== null && maxIn > quote.route.amountIn ? maxIn : quote.route.amountIn;
  if (limit === null || takes <= limit) return;
  const asset = assetById(quote.route.from);
  const amount = (v: bigint) => `${writeAmount(v, asset, 'formatted')} ${writeAsset(asset, 'formatted')}`;
  const what = takes === quote.route.amountIn ? `sells ${amount(takes)}` : `accepts deposits up to ${amount(takes)}`;
  throw new AmountAboveLimit(`Quote ${quote.id} ${what}, above this router's limit of ${amount(limit)} per order; quote a smaller amount.`);
}
