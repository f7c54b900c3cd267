// Public names of the actor host: the runtime and the kinds it hosts.
export { createRuntime, type Runtime, type RuntimeDeps } from './runtime.js';
export type { ActorKindSpec, AnyActorKindSpec, Replies, WakeUp } from './kind.js';
export { quoteKind, type QuoteKindDeps } from './kinds/quote.js';
export { orderKind, orderView, FEES_ACCOUNT, type OrderKindDeps } from './kinds/order.js';
export { createDepositFeed, depositAddressEntry, type DepositFeed, type DepositFeedDeps } from './deposit-feed.js';
export { createLeaseManager, openLeaseBucket, LEASE_BUCKET, type LeaseManager, type LeaseManagerDeps } from './leases.js';
export type { ShardDirectory, ShardLease, WorkerInfo } from './shard-directory.js';
export { createQuoteJanitor, UNBOUND_QUOTE_STATES, type QuoteJanitor, type QuoteJanitorOptions } from './janitor.js';
export { withOrderPlacement, type PlacementDeps } from './placement.js';
export { createAdminService, type AdminService, type AdminServiceDeps } from './admin.js';
