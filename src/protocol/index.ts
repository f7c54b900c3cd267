// Public names of the protocol between the edge and the actors: per actor kind the commands (discriminated unions
// on `type`), each mapped to its reply; the runtime's own wake-up; the admin subject's requests and answers.
export type { CommandOf, CommandTypeOf, Protocol, ReplyOf, RuntimeProtocol, TimerDue } from './protocol.js';
export { TIMER_DUE } from './protocol.js';
export type { QuoteBind, QuoteBound, QuoteCommand, QuoteGet, QuoteHostProtocol, QuoteOrder, QuoteOrdered, QuoteProtocol, QuoteRequestCommand } from './quote.js';
export type { OrderCommand, OrderCreate, OrderDeposit, OrderDepositVanished, OrderGet, OrderProtocol, OrderUnwind } from './order.js';
export type { ActorKind, AnyCommand, Command, CommandType, Protocols, ReplyTo } from './kinds.js';
export { ACTOR_KINDS, commandTypes, isCommandOf } from './kinds.js';
export type {
  AdminActorAnswer, AdminActorRequest, AdminActorsAnswer, AdminActorsRequest, AdminAnswer, AdminAuditAnswer,
  AdminCountsAnswer, AdminEmptyRequest, AdminEndpoint, AdminErrorAnswer, AdminErrorCode, AdminProtocol, AdminRequest,
  AdminShardRow, AdminShardsAnswer, AdminWorkerRow,
} from './admin.js';
export { ACTORS_LIMIT, ADMIN_ENDPOINTS, ADMIN_GROUP, ADMIN_SERVICE_NAME, ADMIN_SUBJECTS } from './admin.js';
export { isErrorData, isOrderTerms, malformedCommandAt, isOrderView, isQuote, isQuoteAudit, isQuoteRequest, replyCheck } from './checks.js';
