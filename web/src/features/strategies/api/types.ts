/**
 * The strategy routes' answers, as the server declares them (src/modules/strategies/
 * strategy-answers.schema.ts) and `npm run api:types` generates them (docs/rules/web.md#typed-api):
 * a changed answer breaks the console's type-check. The names below are the console's words for
 * the parts it reads.
 */
import type { Answer } from '../../../api/client';

/** `GET /strategy/api/strategies`. */
export type StrategiesAnswer = Answer<'/strategy/api/strategies'>;
export type Strategy = StrategiesAnswer['data'][number];
export type Leg = Strategy['legs'][number];
/** `GET /strategy/api/strategies/{id}`. */
export type StrategyAnswer = Answer<'/strategy/api/strategies/{id}'>;
/** `POST /strategy/api/strategies`: the strategy with its webhook credentials, shown once. */
export type CreatedAnswer = Answer<'/strategy/api/strategies', 'post'>;
/** `POST /strategy/api/strategies/{id}/rotate-token`. */
export type RotatedAnswer = Answer<'/strategy/api/strategies/{id}/rotate-token', 'post'>;
/** A webhook credential as creation and rotation answer it (shown once). */
export type Issued = RotatedAnswer['data'];
/** `GET /strategy/api/strategies/{id}/runs`. */
export type RunsAnswer = Answer<'/strategy/api/strategies/{id}/runs'>;
export type Run = RunsAnswer['data'][number];
export type RunStatus = Run['status'];
/** `GET /strategy/api/strategies/{id}/events`. */
export type EventsAnswer = Answer<'/strategy/api/strategies/{id}/events'>;
export type StrategyEvent = EventsAnswer['data'][number];
/** `GET /strategy/api/strategies/{id}/deliveries`. */
export type DeliveriesAnswer = Answer<'/strategy/api/strategies/{id}/deliveries'>;
export type Delivery = DeliveriesAnswer['data'][number];
/** What a run action (start, stop) answers, on every status: the webhook's fields. */
export type RunAnswer = Answer<'/strategy/api/strategies/{id}/start', 'post'>;
