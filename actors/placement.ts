// `quote.order`, answered by the host of the quote's shard beside its runtime: the quote as its actor holds it, the
// quote's `quote.bind`, then the bound order's `order.create` from that quote, for one message from the edge instead
// of two (in a cluster, one NATS round trip fewer per order). The order is made from the quote this host's actor
// holds, never from a copy a message carried. The quote and its bind are always this host's (the message came to the
// quote's shard); the creation is too when the host holds the order's shard, else it goes over the bus to the host
// that does. Each
// step is the command it always was, so the guarantees are theirs: one quote binds one order, and a repeat after a
// failure between the two completes the creation of the order the quote is already bound to. An order selling more than
// its asset's deposit limit is refused before anything is bound.
// When this host creates the order, the creation does not wait for the bind to be stored: the order's first write
// follows the bind's (a WriteTicket), so the store commits both together or the bind first, and refuses the order when
// it refuses the bind. The answer waits for both: no order is ever stored for a quote whose bind is not.
import type { ActorRef, Bus, EnvelopeHandler, Reply } from '../src/bus/types.js';
import { toErrorData } from '../src/errors.js';
import { assertWithinLimit, NO_LIMITS, type DepositLimits } from '../src/orders/limits.js';
import type { OrderView } from '../src/orders/types.js';
import { isCommandOf, type OrderCreate } from '../src/protocol/index.js';
import { WriteTicket } from '../src/store/write-ticket.js';
import { asMoving, type Runtime } from './runtime.js';

export interface PlacementDeps {
  /** Whether this host holds the actor's shard now (its runtime may write it); embedded: always. */
  holds(ref: ActorRef): boolean;
  /** Reaches an order whose shard another host holds. */
  bus: Pick<Bus, 'request'>;
  /** ROUTER_ORDER_MAX_DEPOSIT: an order selling more is refused before its quote is bound; absent = none. */
  limits?: DepositLimits;
}

/** The runtime's `handle`, with `quote.order` answered here; every other message goes to `handle` as it is. */
export function withOrderPlacement(runtime: Pick<Runtime, 'handle' | 'ask'>, deps: PlacementDeps): EnvelopeHandler {
  return async (envelope) => {
    const { ref, message, requestId } = envelope;
    if (ref.kind !== 'quote' || !isCommandOf('quote', message) || message.type !== 'quote.order') return runtime.handle(envelope);
    const { orderId: proposed, toAddress, refundAddress, terms } = message;
    // The order is made from the quote as its actor holds it, not from a copy any message carried; its candidates,
    // rendered once when it was issued, are left out.
    const issued = await runtime.ask({ kind: 'quote', id: ref.id }, { type: 'quote.get' }, requestId);
    if (!issued.ok) return issued;
    const quote = issued.value.audit === null ? issued.value : { ...issued.value, audit: null };
    try {
      assertWithinLimit(deps.limits ?? NO_LIMITS, quote, terms?.maxIn ?? null);
    } catch (err) {
      return { ok: false, error: toErrorData(err) };
    }
    const bind = new WriteTicket();
    const bound = await runtime.ask({ kind: 'quote', id: ref.id }, { type: 'quote.bind', orderId: proposed, toAddress, refundAddress }, requestId, { queuedUnder: bind });
    if (!bound.ok) return bound;
    const order: ActorRef<'order'> = { kind: 'order', id: bound.value.orderId };
    const create: OrderCreate = { type: 'order.create', quote, toAddress, refundAddress, ...(terms === undefined ? {} : { terms }) };
    const here = deps.holds(order);
    // Another host's store write cannot follow this one's: the bind is stored before the order is asked for there.
    const created = here ? await runtime.ask(order, create, requestId, { after: bind }) : await stored(bind).then((failed) => failed ?? overBus(deps.bus, order, create, requestId));
    const bindFailed = here ? await stored(bind) : null;
    if (!created.ok) return created;
    if (bindFailed) return bindFailed;
    return { ok: true, value: { orderId: order.id, order: created.value } };
  };
}

/** Waits for the write `ticket` tied (if any); its refusal comes back as the failed reply the runtime gives for it. */
async function stored(ticket: WriteTicket): Promise<{ ok: false; error: ReturnType<typeof toErrorData> } | null> {
  try {
    await ticket.settled;
    return null;
  } catch (err) {
    return { ok: false, error: toErrorData(asMoving(err)) };
  }
}

/** The creation on the host that holds the order's shard; its failure comes back as the reply it was. */
async function overBus(bus: PlacementDeps['bus'], order: ActorRef<'order'>, create: OrderCreate, requestId: string | undefined): Promise<Reply<OrderView>> {
  try {
    return { ok: true, value: await bus.request(order, create, { requestId }) };
  } catch (err) {
    return { ok: false, error: toErrorData(err) };
  }
}
