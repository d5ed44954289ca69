/**
 * Watch-list routes under `/watchlist/api/lists` (docs/rules/watchlists.md#watchlist-routes):
 * session routes (cookie session, CSRF on every change), the caller's own lists only, the
 * administration surface's rate limit, small bodies. Thin: schema in, one service call, answer out.
 */
import type { FastifyRequest } from 'fastify';
import { Type, type TProperties } from 'typebox';
import { errorBodies } from '../../platform/http/error-body.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import type { SessionGuard } from '../auth/session.guard.js';
import type { WatchlistsService } from './watchlists.service.js';
import {
  AddItemBody,
  ItemParams,
  ItemView,
  ListParams,
  ListView,
  NameBody,
  ReorderBody,
  WATCHLIST_BODY_LIMIT,
} from './watchlists.schema.js';

/** A success answer with these fields. */
const ok = <T extends TProperties>(props: T) => Type.Object({ status: Type.Literal('success'), ...props });
/** What a deletion answers: the id of what is gone. */
const Removed = ok({ data: Type.Object({ id: Type.Integer() }) });

const readErrors = errorBodies(400, 401, 404, 429);
const writeErrors = errorBodies(400, 401, 403, 404, 409, 413, 429);

export interface WatchlistRouteDeps {
  watchlists: WatchlistsService;
  /** The session guard (CSRF on state-changing methods). */
  guard: SessionGuard;
  rateLimit: RateLimitHook;
}

export function watchlistRoutes(app: App, deps: WatchlistRouteDeps): void {
  const svc = deps.watchlists;
  const base = '/watchlist/api/lists';
  // The market section of the API reference: watch lists are lists of master-contract instruments.
  const tags = ['market'];
  const opts = { onRequest: deps.rateLimit, preHandler: deps.guard() };
  const writes = { ...opts, bodyLimit: WATCHLIST_BODY_LIMIT };
  const user = (req: FastifyRequest) => req.session!.userId;

  app.get(
    base,
    {
      ...opts,
      schema: {
        summary: "The user's watch lists, each with its instruments, in their order",
        tags,
        response: { 200: ok({ data: Type.Array(ListView) }), ...readErrors },
      },
    },
    async (req) => ({ status: 'success' as const, data: await svc.list(user(req)) }),
  );

  app.post(
    base,
    {
      ...writes,
      schema: {
        summary: 'Create an empty watch list (at the end)',
        tags,
        body: NameBody,
        response: { 201: ok({ data: ListView }), ...writeErrors },
      },
    },
    async (req, reply) => {
      const data = await svc.create(user(req), (req.body as NameBody).name);
      return reply.code(201).send({ status: 'success' as const, data });
    },
  );

  app.patch(
    `${base}/:id`,
    {
      ...writes,
      schema: {
        summary: 'Rename a watch list',
        tags,
        params: ListParams,
        body: NameBody,
        response: { 200: ok({ data: ListView }), ...writeErrors },
      },
    },
    async (req) => {
      const { id } = req.params as ListParams;
      return {
        status: 'success' as const,
        data: await svc.rename(user(req), id, (req.body as NameBody).name),
      };
    },
  );

  app.delete(
    `${base}/:id`,
    {
      ...opts,
      schema: {
        summary: 'Delete a watch list and its instruments',
        tags,
        params: ListParams,
        response: { 200: Removed, ...writeErrors },
      },
    },
    async (req) => {
      const { id } = req.params as ListParams;
      await svc.remove(user(req), id);
      return { status: 'success' as const, data: { id } };
    },
  );

  app.post(
    `${base}/:id/items`,
    {
      ...writes,
      schema: {
        summary: 'Add an instrument of the live master contract to a watch list (at the end)',
        tags,
        params: ListParams,
        body: AddItemBody,
        response: { 201: ok({ data: ItemView }), ...writeErrors },
      },
    },
    async (req, reply) => {
      const { id } = req.params as ListParams;
      const data = await svc.addItem(user(req), id, req.body as AddItemBody);
      return reply.code(201).send({ status: 'success' as const, data });
    },
  );

  app.delete(
    `${base}/:id/items/:itemId`,
    {
      ...opts,
      schema: {
        summary: 'Remove an instrument from a watch list',
        tags,
        params: ItemParams,
        response: { 200: Removed, ...writeErrors },
      },
    },
    async (req) => {
      const { id, itemId } = req.params as ItemParams;
      await svc.removeItem(user(req), id, itemId);
      return { status: 'success' as const, data: { id: itemId } };
    },
  );

  app.put(
    `${base}/:id/order`,
    {
      ...writes,
      schema: {
        summary: "Reorder a watch list's instruments (every item id exactly once)",
        tags,
        params: ListParams,
        body: ReorderBody,
        response: { 200: ok({ data: ListView }), ...writeErrors },
      },
    },
    async (req) => {
      const { id } = req.params as ListParams;
      const data = await svc.reorder(user(req), id, (req.body as ReorderBody).item_ids);
      return { status: 'success' as const, data };
    },
  );
}
