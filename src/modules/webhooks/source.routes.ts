/**
 * The configuration routes every webhook source with its own owner table shares (scanners,
 * flows): list, create (its credential shown once), read, update, delete (the credential dies, the
 * audit stays), rotate (a new credential; the old one stops working) and the deliveries, newest
 * first. Session routes: the caller's own rows only, CSRF on changes; answers that show a
 * credential are never cached (`Cache-Control: no-store`).
 */
import type { FastifyReply, FastifyRequest, onRequestHookHandler, preHandlerHookHandler } from 'fastify';
import { Type, type TProperties, type TSchema } from 'typebox';
import { errorBodies } from '../../platform/http/error-body.js';
import type { App } from '../../platform/http/types.js';

const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2 ** 53 - 1 }) });
const LimitQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) });

/** A success answer with these fields. */
export const ok = <T extends TProperties>(props: T) =>
  Type.Object({ status: Type.Literal('success'), ...props });

/** What a source's configuration service offers its routes. */
export interface SourceService<Body> {
  list(userId: number): Promise<unknown[]>;
  create(userId: number, body: Body): Promise<object>;
  get(userId: number, id: number): Promise<unknown>;
  update(userId: number, id: number, body: Partial<Body>): Promise<unknown>;
  remove(userId: number, id: number): Promise<void>;
  rotate(userId: number, id: number): Promise<object>;
  deliveries(userId: number, id: number, limit: number): Promise<unknown[]>;
}

export interface SourceRoutesSpec<Body> {
  /** `/scanner/api/scanners`. */
  base: string;
  tags: string[];
  service: SourceService<Body>;
  /** The row as the routes show it, the create and update bodies, the issued credential's fields. */
  schemas: { view: TSchema; create: TSchema; update: TSchema; issued: TProperties; delivery: TSchema };
  /** The deliveries' path below a row (`/deliveries`, `/runs`). */
  deliveriesPath: string;
  summaries: {
    list: string;
    create: string;
    get: string;
    update: string;
    remove: string;
    rotate: string;
    deliveries: string;
  };
  /** The sentence of a deletion's answer. */
  removed: string;
  /** The error statuses the routes document. */
  errors: readonly number[];
  /** A larger body limit for create and update (a flow's definition). */
  bodyLimit?: number;
  onRequest: onRequestHookHandler;
  preHandler: preHandlerHookHandler;
}

/** The row's id in the path (the schema checked it). */
const idOf = (req: FastifyRequest) => (req.params as { id: number }).id;

export function webhookSourceRoutes<Body>(app: App, spec: SourceRoutesSpec<Body>): void {
  const { base, tags, service: svc, schemas, summaries } = spec;
  const opts = { onRequest: spec.onRequest, preHandler: spec.preHandler };
  const errors = errorBodies(...spec.errors);
  const limited = spec.bodyLimit === undefined ? {} : { bodyLimit: spec.bodyLimit };
  const user = (req: FastifyRequest) => req.session!.userId;
  const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store');
  const schema = (summary: string, s: Record<string, unknown>) => ({ summary, tags, ...s });
  const one = ok({ data: schemas.view });

  app.get(
    base,
    {
      ...opts,
      schema: schema(summaries.list, {
        response: { 200: ok({ data: Type.Array(schemas.view) }), ...errors },
      }),
    },
    async (req) => ({ status: 'success' as const, data: await svc.list(user(req)) }),
  );
  app.post(
    base,
    {
      ...opts,
      ...limited,
      schema: schema(summaries.create, {
        body: schemas.create,
        response: { 200: ok({ data: schemas.view, ...schemas.issued }), ...errors },
      }),
    },
    async (req, reply) => {
      noStore(reply);
      return { status: 'success' as const, ...(await svc.create(user(req), req.body as Body)) };
    },
  );
  app.get(
    `${base}/:id`,
    { ...opts, schema: schema(summaries.get, { params: IdParams, response: { 200: one, ...errors } }) },
    async (req) => ({ status: 'success' as const, data: await svc.get(user(req), idOf(req)) }),
  );
  app.put(
    `${base}/:id`,
    {
      ...opts,
      ...limited,
      schema: schema(summaries.update, {
        params: IdParams,
        body: schemas.update,
        response: { 200: one, ...errors },
      }),
    },
    async (req) => ({
      status: 'success' as const,
      data: await svc.update(user(req), idOf(req), req.body as Partial<Body>),
    }),
  );
  app.delete(
    `${base}/:id`,
    {
      ...opts,
      schema: schema(summaries.remove, {
        params: IdParams,
        response: { 200: ok({ message: Type.String() }), ...errors },
      }),
    },
    async (req) => {
      await svc.remove(user(req), idOf(req));
      return { status: 'success' as const, message: spec.removed };
    },
  );
  app.post(
    `${base}/:id/rotate`,
    {
      ...opts,
      schema: schema(summaries.rotate, {
        params: IdParams,
        response: { 200: ok(schemas.issued), ...errors },
      }),
    },
    async (req, reply) => {
      noStore(reply);
      return { status: 'success' as const, ...(await svc.rotate(user(req), idOf(req))) };
    },
  );
  app.get(
    `${base}/:id${spec.deliveriesPath}`,
    {
      ...opts,
      schema: schema(summaries.deliveries, {
        params: IdParams,
        querystring: LimitQuery,
        response: { 200: ok({ data: Type.Array(schemas.delivery) }), ...errors },
      }),
    },
    async (req) => ({
      status: 'success' as const,
      data: await svc.deliveries(user(req), idOf(req), (req.query as { limit?: number }).limit ?? 100),
    }),
  );
}
