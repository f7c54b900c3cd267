// The admin subject's answers checked where the CLI receives them: a worker of another version may answer another
// shape, which is then named as such instead of rendered as `undefined` columns or a wrong exit code.
import { isChainName } from '../assets/types.js';
import {
  anything, arrayOf, isBoolean, isInteger, isNumber, isString, mapOf, nullable, oneOf, optional, shapeOf, variantsOf, type Guard,
} from '../checks.js';
import type {
  AccountRowJson, AuditFindingJson, AuditReportJson, AuditRowJson, GasDeskRowJson, PlacedDepositJson, UnreadableOrder,
} from '../orders/audit.js';
import type { ActorSummary, Transition } from '../store/types.js';
import type { AdminAnswer, AdminEndpoint, AdminErrorAnswer } from './admin.js';
import { ACTOR_KINDS } from './kinds.js';

const isKind = oneOf(ACTOR_KINDS);
/** An amount of the audit's wire form: a decimal integer string, negative for a difference. */
const isAmount: Guard<string> = (v): v is string => typeof v === 'string' && /^-?[0-9]+$/.test(v);

export const isAdminErrorAnswer = shapeOf<AdminErrorAnswer>({
  error: shapeOf<AdminErrorAnswer['error']>({ code: isString, message: isString }),
});

const isTransition = shapeOf<Transition>({ status: isString, at: isNumber });
const isSummary = shapeOf<ActorSummary>({
  kind: isKind, id: isString, status: nullable(isString), version: isInteger, epoch: isInteger, shard: isInteger, wakeAt: nullable(isNumber),
  updatedAt: isNumber,
});

const isRow = shapeOf<AuditRowJson>({
  chain: isChainName, asset: isString, arrived: isAmount, recorded: isAmount, foreign: isAmount, pending: isAmount, swappedIn: isAmount,
  swappedOut: isAmount, delivered: isAmount, refunded: isAmount, costs: isAmount, held: isAmount, ledgerHeld: isAmount, difference: isAmount,
  unrecorded: isAmount, heldMismatch: isAmount,
});
const isAccount = shapeOf<AccountRowJson>({
  chain: isChainName, role: oneOf(['treasury', 'gas']), address: isString, asset: isString, block: isInteger, onChain: isAmount, expected: isAmount,
  float: isAmount, booked: isAmount, fees: isAmount, inFlight: isAmount, unrestored: optional(arrayOf(isString)), difference: isAmount,
});
const isGasRow = shapeOf<GasDeskRowJson>({
  order: isString, chain: isChainName, asset: isString, address: isString, charged: isAmount, chargedWei: nullable(isAmount), spentWei: isAmount,
  spent: nullable(isAmount), toppedUp: isAmount,
});
const isPlaced = shapeOf<PlacedDepositJson>({
  order: isString, chain: isChainName, asset: isString, address: isString, txId: isString, from: isString, amount: isAmount, place: isString,
});

type Finding<K extends AuditFindingJson['kind']> = Extract<AuditFindingJson, { kind: K }>;
/** The fields every finding has. */
const AT = { order: isString, chain: isChainName, asset: isString, address: isString };
const isFinding = variantsOf<AuditFindingJson, 'kind'>('kind', {
  unrecorded_deposit: shapeOf<Finding<'unrecorded_deposit'>>({ ...AT, kind: oneOf(['unrecorded_deposit']), txId: isString, amount: isAmount }),
  missing_deposit: shapeOf<Finding<'missing_deposit'>>({ ...AT, kind: oneOf(['missing_deposit']), txId: isString, amount: isAmount }),
  deposit_amount: shapeOf<Finding<'deposit_amount'>>({ ...AT, kind: oneOf(['deposit_amount']), txId: isString, amount: isAmount, recorded: isAmount }),
  held_mismatch: shapeOf<Finding<'held_mismatch'>>({ ...AT, kind: oneOf(['held_mismatch']), held: isAmount, ledgerHeld: isAmount }),
  flow_mismatch: shapeOf<Finding<'flow_mismatch'>>({
    ...AT, kind: oneOf(['flow_mismatch']), txId: isString, what: isString, amount: isAmount, ledger: nullable(isAmount),
  }),
  onchain_mismatch: shapeOf<Finding<'onchain_mismatch'>>({ ...AT, kind: oneOf(['onchain_mismatch']), onChain: isAmount, books: isAmount }),
  gas_undercharged: shapeOf<Finding<'gas_undercharged'>>({
    ...AT, kind: oneOf(['gas_undercharged']), spentWei: isAmount, chargedWei: isAmount, charged: isAmount,
  }),
});

const isAudit = shapeOf<AuditReportJson>({
  orders: isInteger, accounts: arrayOf(isAccount), gas: arrayOf(isGasRow), rows: arrayOf(isRow), foreign: arrayOf(isPlaced),
  pending: arrayOf(isPlaced), findings: arrayOf(isFinding), unreadable: arrayOf(shapeOf<UnreadableOrder>({ id: isString, reason: isString })),
  differing: isInteger, clean: isBoolean,
});

/** Each endpoint's answer check: the compiler fails the build when an endpoint has none. */
const ANSWERS: { readonly [E in AdminEndpoint]: Guard<AdminAnswer<E>> } = {
  actor: shapeOf<AdminAnswer<'actor'>>({
    kind: isKind, id: isString, status: nullable(isString),
    state: nullable(shapeOf<NonNullable<AdminAnswer<'actor'>['state']>>({ value: anything, status: nullable(isString) })),
    context: anything, version: isInteger, epoch: isInteger, shard: isInteger, wakeAt: nullable(isNumber), updatedAt: isNumber,
    history: arrayOf(isTransition),
  }),
  actors: shapeOf<AdminAnswer<'actors'>>({
    kind: isKind, status: nullable(arrayOf(isString)), limit: isInteger, actors: arrayOf(isSummary), next: nullable(isString),
  }),
  shards: shapeOf<AdminAnswer<'shards'>>({
    total: isInteger, unowned: isInteger,
    shards: arrayOf(shapeOf<AdminAnswer<'shards'>['shards'][number]>({ shard: isInteger, owner: nullable(isString), epoch: nullable(isInteger), renewedAt: nullable(isNumber) })),
    workers: arrayOf(shapeOf<AdminAnswer<'shards'>['workers'][number]>({ id: isString, seenAt: isNumber, pid: isInteger, host: isString, shards: isInteger })),
  }),
  counts: shapeOf<AdminAnswer<'counts'>>({
    actors: arrayOf(shapeOf<AdminAnswer<'counts'>['actors'][number]>({ kind: isKind, status: nullable(isString), count: isInteger })),
    totals: mapOf(isInteger),
    worker: shapeOf<AdminAnswer<'counts'>['worker']>({ id: isString, active: nullable(isInteger) }),
    workers: isInteger,
  }),
  audit: isAudit,
};

/** The check of an endpoint's answer. */
export function adminAnswerCheck<E extends AdminEndpoint>(endpoint: E): Guard<AdminAnswer<E>> {
  return ANSWERS[endpoint];
}
