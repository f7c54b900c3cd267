// The chains port over the simulated ledger plus real EVM nodes: each chain named in `rpc` moves real money through
// its node (src/chains/evm/ledger.ts), every other chain stays simulated as before.
//
// On a real chain the simulated ledger stays the router's bookkeeping: holdings (`order:<id>`), venue pools, `fees`
// and `mint` are its accounts, and all of them stand for money the router's treasury address holds on that chain
// (venues stay simulated, so a pool is only a line in the books). A transfer whose two sides are the same real address
// (e.g. `pool:x` → `order:y`, both the treasury) is bookkeeping only; any other is first sent on chain with the same
// key (exactly once per key, the EVM outbox) and then booked with that key, and it answers the real transaction hash.
// Which transaction each key stands for is in real-tx.ts. Deposits are read from the node and booked before the
// deposit feed hears of them, and booked back after a reorg (real-deposits.ts); a watch reads an address's transfers
// through real-deposits-to.ts. The router's own accounts beside the books are in router-accounts.ts, deposit
// addresses' gas in gas-desk.ts.
import { boundLedger } from './bound-ledger.js';
import { isAddress, type Address, type Hex } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import type { ChainName } from '../assets/types.js';
import { InvalidAddress, InvalidRequest } from '../errors.js';
import type { Logger } from '../log.js';
import { COST_TABLE } from '../routing/costing.js';
import type { ActorStore } from '../store/types.js';
import { orderOfKey } from '../orders/money.js';
import { accountKey, isUnbounded } from './accounts.js';
import { InsufficientFunds, simulatedDepositOnRealChain } from './errors.js';
import { openEvmChain, type EvmChain, type EvmChainOptions } from './evm/ledger.js';
import { lowerAddress } from './evm/rpc.js';
import { Locks } from './evm/nonces.js';
import type { AccountReconciliation, ChainLedger, GasDeskSpend, Reorg, SimChains, Transfer, TransferFilter, TransferRequest } from './types.js';
import { gasDesk } from './gas-desk.js';
import { RealDeposits } from './real-deposits.js';
import { RealDepositsTo } from './real-deposits-to.js';
import { RealTxMap } from './real-tx.js';
import { isInternalAccount, routerAccounts } from './router-accounts.js';
import { WatchHub } from './watch-hub.js';

export interface HybridChainsOptions {
  /** The bookkeeping of every chain, and the whole ledger of the simulated ones. */
  sim: SimChains;
  /** JSON-RPC URL per real chain (registry EVM chains only). */
  rpc: Partial<Record<ChainName, string>>;
  /** The EVM outbox, nonces, block hashes and the real-transaction map live here (the ActorStore's key space). */
  store: Pick<ActorStore, 'getKey' | 'putKey'>;
  /** Signs for the treasury: the real address behind every internal account. */
  treasuryKey: Hex;
  /** Signs the gas top-ups of deposit addresses. */
  gasKey: Hex;
  /** The router's deposit addresses (issued by its vaults) and their keys. */
  depositAddresses: {
    has(address: string): Promise<boolean>;
    keyOf(address: string): Promise<Hex | null>;
  };
  logger?: Logger;
  /** How often real-chain watches poll; default 1000 ms, 0 = only on `poll()`. */
  pollMs?: number;
  /** Confirmations a deposit needs per real chain before it is spent; absent = the registry's figure. */
  requiredConfirmations?: Partial<Record<ChainName, number>>;
  /** Passed to every `openEvmChain` (timeouts, polling; tests shorten them). */
  evm?: Partial<Omit<EvmChainOptions, 'chain' | 'rpcUrl' | 'store' | 'signers' | 'logger'>>;
}

export interface HybridChains extends SimChains {
  /** The real chains and their EVM adapters. */
  readonly real: ReadonlyMap<ChainName, EvmChain>;
  /** The address holding the router's money on every real chain. */
  readonly treasury: Address;
  /** The address paying deposit addresses' gas. */
  readonly gasAccount: Address;
}

export function openHybridChains(opts: HybridChainsOptions): HybridChains {
  const { sim, store, depositAddresses, logger } = opts;
  const treasury = privateKeyToAddress(opts.treasuryKey).toLowerCase() as Address;
  const gasAccount = privateKeyToAddress(opts.gasKey).toLowerCase() as Address;

  const signers = async (address: string): Promise<Hex | null> => {
    const a = address.toLowerCase();
    if (a === treasury) return opts.treasuryKey;
    if (a === gasAccount) return opts.gasKey;
    return depositAddresses.keyOf(a);
  };

  const real = new Map<ChainName, EvmChain>();
  for (const [chain, rpcUrl] of Object.entries(opts.rpc) as Array<[ChainName, string | undefined]>) {
    if (!rpcUrl) continue;
    const required = opts.requiredConfirmations?.[chain];
    const priced = COST_TABLE.gasPriceWei[chain];
    real.set(chain, openEvmChain({ ...opts.evm, chain, rpcUrl, store, signers, sendFamily: orderOfKey, ...(priced !== undefined ? { pricedGasWei: priced } : {}), ...(required !== undefined ? { requiredConfirmations: required } : {}), ...(logger ? { logger } : {}) }));
  }
  // Chain names and public addresses only: an RPC URL may carry an API key.
  logger?.info({ chains: [...real.keys()], treasury, gasAccount }, 'real EVM chains; the others stay simulated');

  const evmOf = (chain: ChainName): EvmChain | undefined => real.get(chain);

  const accounts = routerAccounts({ sim, store, treasury, gasAccount, ...(logger ? { logger } : {}) });
  const desk = gasDesk({ treasury, gasAccount, ...(logger ? { logger } : {}) });

  /** Internal accounts stand for the treasury; anything else on an EVM chain must be an EVM address. */
  function onChain(address: string, field: 'from' | 'to'): Address {
    if (typeof address === 'string' && isInternalAccount(address)) return treasury;
    if (typeof address !== 'string' || !isAddress(address, { strict: false })) {
      throw new InvalidAddress(`${field} must be an EVM address or an internal account of the router.`, field);
    }
    return lowerAddress(address);
  }

  const txs = new RealTxMap(store);
  const deposits = new RealDeposits({ sim, store, txs, depositAddresses, treasury, gasAccount, ...(logger ? { logger } : {}) });
  const depositsTo = new RealDepositsTo(gasAccount);

  /** A bookkeeping transfer as the chain knows it: the real hash and block when it was sent or deposited for real;
   *  null for a deposit a reorg removed and its reversal (the chain has neither). */
  async function withRealTx(t: Transfer): Promise<Transfer | null> {
    if (!real.has(t.chain)) return t;
    const r = await txs.of(t.key);
    if (r?.vanished) return null;
    return r ? { ...t, txId: r.txId, block: r.block } : t;
  }

  // ------------------------------------------------------------------ transfers

  const depositSends = new Locks();

  async function transfer(req: TransferRequest): Promise<Transfer> {
    const evm = evmOf(req.chain);
    if (!evm) return sim.transfer(req);
    const booked = await bookedAs(req);
    if (booked) return booked;
    const from = onChain(req.from, 'from');
    const to = onChain(req.to, 'to');
    if (from === to) return sim.transfer(req);
    // The router's own accounts hold ETH; a deposit address holds only what the user sent, and its native coin in the
    // books is orders' money: gas is topped up above it and the send may not reach into what stays after it.
    const fromDeposit = from !== treasury && from !== gasAccount;
    // Sends from one deposit address run one at a time, each after the one before it is mined: an order's sweep and
    // its refund of an excess run side by side (the order's lifecycle and refunds), and each one's books check and gas
    // top-up must see the other's send done, not count on the same balance.
    if (!fromDeposit) return sendReal(req, evm, from, to, false);
    // A call of the same key that waited here finds the send booked by the one before it.
    return depositSends.run(`${req.chain}:${from}`, async () => (await bookedAs(req)) ?? sendReal(req, evm, from, to, true));
  }

  /** A booked key answers what it booked, whatever the request says (the port's idempotency), without the node. */
  async function bookedAs(req: TransferRequest): Promise<Transfer | null> {
    if (typeof req.key !== 'string' || req.key.length === 0) return null;
    const [booked] = await sim.transfers({ key: req.key });
    if (!booked) return null;
    // A vanished deposit's key is never a send's: answered as booked.
    return (await withRealTx(booked)) ?? booked;
  }

  async function sendReal(req: TransferRequest, evm: EvmChain, from: Address, to: Address, fromDeposit: boolean): Promise<Transfer> {
    // Signed before a crash and not booked: the send settles the stored transaction, which is booked below as this
    // request's. Its amount is taken from the transaction; accounts that differ cannot be, so they are refused, loudly,
    // rather than booked where the money did not go.
    const signed = await evm.outboxEntry(req.key);
    if (signed && (signed.from !== from || signed.to !== to)) {
      throw new InvalidRequest(`${req.chain}: key ${req.key} was signed for a send from ${signed.from} to ${signed.to}, not from ${from} to ${to}.`, 'key');
    }
    // The books must allow it before real money moves: the treasury on chain holds more than any one holding owns.
    // Sends from one deposit address run one at a time (above), so this check and the booking below do not race.
    let held: bigint | null = null;
    if (!isUnbounded(accountKey(req.chain, req.from))) {
      const balance = await sim.balanceOf(req.chain, req.from, req.asset);
      held = balance;
      if (typeof req.amount === 'bigint' && balance < req.amount) {
        throw new InsufficientFunds(`${req.from} holds ${balance} of ${req.asset} on ${req.chain}, less than the ${req.amount} to send.`, {
          chain: req.chain, asset: req.asset, address: req.from, balance: String(balance), amount: String(req.amount),
        });
      }
    }
    // Before the router's first send on the chain, what its accounts held (the reconciliation's starting point).
    await accounts.baseline(evm);
    const native = evm.nativeAsset;
    const ethHeld = !fromDeposit ? 0n : req.asset === native && held !== null ? held : await sim.balanceOf(req.chain, req.from, native);
    // Signed already: the send only waits for its transaction, whose gas was settled before it was signed.
    if (!signed && fromDeposit) await desk.fund(evm, req.key, req.asset, from, to, req.amount, ethHeld);
    const keep = ethHeld - (req.asset === native ? req.amount : 0n);
    const sent = await evm.send({ key: req.key, asset: req.asset, from, to, amount: req.amount, ...(keep > 0n ? { keep } : {}) });
    await txs.remember(req.key, { txId: sent.txId, block: sent.block });
    // Booked as sent: after a crash between the two, the outbox's transaction is the truth for this key.
    const booked = await sim.transfer({ ...req, asset: sent.asset, amount: sent.amount });
    return { ...booked, txId: sent.txId, block: sent.block };
  }

  async function transfers(filter: TransferFilter = {}): Promise<Transfer[]> {
    if (real.size === 0) return sim.transfers(filter);
    // Block bounds and hashes are those of the real chain on real chains, so both are applied after the translation.
    const { fromBlock, toBlock, txId, ...rest } = filter;
    let list: Transfer[];
    const keys = txId === undefined ? [] : await txs.keysOf(txId);
    if (keys.length > 0) {
      const wanted = rest.key === undefined ? keys : keys.filter((k) => k === rest.key);
      list = (await Promise.all(wanted.map((key) => sim.transfers({ ...rest, key })))).flat();
    } else {
      list = await sim.transfers(txId === undefined ? rest : { ...rest, txId });
    }
    const out = await Promise.all(list.map(withRealTx));
    return out.filter(
      (t): t is Transfer =>
        t !== null &&
        (txId === undefined || t.txId.toLowerCase() === txId.toLowerCase()) &&
        (fromBlock === undefined || t.block >= fromBlock) &&
        (toBlock === undefined || t.block <= toBlock),
    );
  }

  const realHub = new WatchHub(
    {
      depositsTo: (chain, address) => depositsTo.depositsTo(real.get(chain)!, address),
      mark: async (chain) => String(await real.get(chain)!.height()),
    },
    opts.pollMs ?? 1000,
  );

  const ledgers = new Map<ChainName, ChainLedger>();

  const chains: HybridChains = {
    real,
    treasury,
    gasAccount,
    ledger(chain) {
      if (!real.has(chain)) return sim.ledger(chain);
      let l = ledgers.get(chain);
      if (!l) {
        // The nominal interval of the chain (the node's own blocks decide heights).
        l = boundLedger(chains, chain, sim.ledger(chain).blockMs);
        ledgers.set(chain, l);
      }
      return l;
    },
    async height(chain) {
      const evm = evmOf(chain);
      return evm ? evm.height() : sim.height(chain);
    },
    transfer,
    async simulateDeposit(d) {
      if (real.has(d.chain)) {
        throw simulatedDepositOnRealChain(d.chain);
      }
      return sim.simulateDeposit(d);
    },
    // Balances are the books: on a real chain the treasury's on-chain balance is the sum of its internal accounts.
    balanceOf: (chain, address, asset) => sim.balanceOf(chain, address, asset),
    balances: (filter) => sim.balances(filter),
    // The node's answer, beside the books: only the audit reads it (a real chain), null on a simulated one.
    async onChainBalance(chain, address, asset) {
      const evm = evmOf(chain);
      return evm ? evm.balanceOf(address, asset) : null;
    },
    async reconcileAccounts() {
      const out: AccountReconciliation[] = [];
      for (const evm of real.values()) out.push(...(await accounts.reconcile(evm)));
      return out;
    },
    async gasDesk() {
      const out: GasDeskSpend[] = [];
      for (const evm of real.values()) out.push(...(await desk.spend(evm)));
      return out;
    },
    transfers,
    async confirmations(tx) {
      const evm = evmOf(tx.chain);
      return evm ? evm.confirmations({ block: tx.block }) : sim.confirmations(tx);
    },
    requiredConfirmations(chain) {
      return evmOf(chain)?.requiredConfirmations ?? sim.requiredConfirmations(chain);
    },
    async depositsTo(chain, address, sinceBlock) {
      const evm = evmOf(chain);
      return evm ? depositsTo.depositsTo(evm, address, sinceBlock) : sim.depositsTo(chain, address, sinceBlock);
    },
    async scan(chain, fromBlock, toBlock) {
      const evm = evmOf(chain);
      return evm ? deposits.scan(evm, fromBlock, toBlock) : sim.scan(chain, fromBlock, toBlock);
    },
    async checkReorg(chain, upTo): Promise<Reorg | null> {
      const evm = evmOf(chain);
      return evm ? evm.checkReorg(upTo) : null;
    },
    async vanished(chain, fromBlock) {
      const evm = evmOf(chain);
      return evm ? deposits.vanished(evm, fromBlock) : [];
    },
    async restoreReorgedSends(chain, height) {
      const evm = evmOf(chain);
      if (!evm) return;
      for (const again of await evm.watchSends(height)) {
        // Gas top-ups are not in the books; a booked send is listed at the block it is mined in now.
        const booked = await txs.of(again.key);
        if (booked && !booked.vanished) await txs.remember(again.key, { txId: again.txId, block: again.block });
      }
    },
    watch(chain, address, onDeposit, watchOpts) {
      const evm = evmOf(chain);
      if (!evm) return sim.watch(chain, address, onDeposit, watchOpts);
      return realHub.watch(chain, accountKey(chain, address), onDeposit, watchOpts?.minConfirmations ?? evm.requiredConfirmations);
    },
    async poll() {
      await Promise.all([sim.poll(), realHub.poll()]);
    },
    async close() {
      realHub.close();
      await sim.close();
    },
  };
  return chains;
}

