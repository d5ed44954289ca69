import multipart from '@fastify/multipart';
import { badRequest, fileTooLarge, isAppError, unsupportedMediaType } from '../../platform/errors.js';
import type { App } from '../../platform/http/types.js';
import { ErrorBody } from '../../platform/http/error-body.js';
import {
  CheckBody,
  CheckResponse,
  ExchangeParams,
  FreezeBody,
  FreezeEntryResponse,
  FreezeListResponse,
  FreezeUpdateBody,
  FreezeUploadResponse,
  HolidayBody,
  HolidayListResponse,
  HolidayResponse,
  IdParams,
  MessageResponse,
  StatsResponse,
  TimingBody,
  TimingResponse,
  TimingsResponse,
  YearQuery,
} from './market-admin.schema.js';
import { isWeekend, requireIsoDate } from './timings.service.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { SessionGuard } from '../auth/session.guard.js';
import type { FreezeService } from './freeze.service.js';
import type { HolidaysService } from './holidays.service.js';
import type { MarketCalendar, TimingsService } from './timings.service.js';

/** What the admin routes are built from. */
export interface MarketAdminRouteDeps {
  /** The parts the admin routes serve. */
  services: {
    freeze: FreezeService;
    holidays: HolidaysService;
    timings: TimingsService;
    calendar: MarketCalendar;
  };
  guard: SessionGuard;
  /** `/admin/api/*` limit (API_RATE_LIMIT, default 50/s). */
  rateLimit: RateLimitHook;
  /** `POST /admin/api/freeze/upload` limit (10 per minute). */
  uploadRateLimit: RateLimitHook;
}

/** Largest freeze-quantity CSV accepted (NSE's file is about 7 KB). */
export const MAX_UPLOAD_BYTES = 2 * 1024 * 1024;
const MAX_UPLOAD_MB = MAX_UPLOAD_BYTES / (1024 * 1024);

/** Multipart failures, answered in words (nothing was changed in every case). */
function multipartError(err: unknown): Error {
  if (isAppError(err)) return err;
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') {
    return fileTooLarge(`The file is larger than the ${MAX_UPLOAD_MB} MB upload limit; nothing was changed`);
  }
  if (code === 'FST_FILES_LIMIT') return badRequest('Send exactly one file; nothing was changed');
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return badRequest('Too many form fields: send a file and optionally "exchange"; nothing was changed');
  }
  return badRequest('Malformed multipart/form-data body; nothing was changed');
}

/**
 * `/admin/api/{freeze,holidays,timings,stats}`: administrator session, CSRF on every write (the
 * guard's rule), `{status:'success', data}` answers. Registered in a scope of its own, where the
 * multipart parser for the freeze upload lives.
 */
export async function registerMarketAdminRoutes(app: App, deps: MarketAdminRouteDeps): Promise<void> {
  const { freeze, holidays, timings, calendar } = deps.services;
  const preHandler = deps.guard({ admin: true });
  const admin = { onRequest: deps.rateLimit, preHandler };
  const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };

  await app.register(multipart, {
    limits: {
      fileSize: MAX_UPLOAD_BYTES,
      files: 1,
      fields: 4,
      parts: 6,
      fieldSize: 1024,
      fieldNameSize: 100,
      headerPairs: 50,
    },
  });

  // ---- Freeze quantities ----

  app.get(
    '/admin/api/freeze',
    {
      ...admin,
      schema: {
        summary: 'Freeze quantities',
        tags: ['market'],
        response: { 200: FreezeListResponse, ...errors },
      },
    },
    async () => ({ status: 'success' as const, data: await freeze.list() }),
  );

  app.post(
    '/admin/api/freeze',
    {
      ...admin,
      schema: {
        summary: 'Add a freeze quantity',
        tags: ['market'],
        body: FreezeBody,
        response: { 200: FreezeEntryResponse, ...errors },
      },
    },
    async (req) => {
      const data = await freeze.add(req.body);
      return { status: 'success' as const, message: `Freeze quantity added for ${data.symbol}`, data };
    },
  );

  app.put(
    '/admin/api/freeze/:id',
    {
      ...admin,
      schema: {
        summary: 'Update a freeze quantity',
        tags: ['market'],
        params: IdParams,
        body: FreezeUpdateBody,
        response: { 200: FreezeEntryResponse, ...errors },
      },
    },
    async (req) => {
      const data = await freeze.update(req.params.id, req.body);
      return { status: 'success' as const, message: `Freeze quantity updated for ${data.symbol}`, data };
    },
  );

  app.delete(
    '/admin/api/freeze/:id',
    {
      ...admin,
      schema: {
        summary: 'Delete a freeze quantity',
        tags: ['market'],
        params: IdParams,
        response: { 200: MessageResponse, ...errors },
      },
    },
    async (req) => {
      await freeze.remove(req.params.id);
      return { status: 'success' as const, message: 'Freeze quantity deleted' };
    },
  );

  // Multipart: a file (NSE's qtyfreeze CSV) and an optional `exchange` field (default NFO). The
  // file is read into memory (2 MB at most) and the exchange's list replaced in one transaction.
  // No body schema: the multipart stream is read in the handler (after the guard), under the
  // plugin's limits; anything else is a 415.
  app.post(
    '/admin/api/freeze/upload',
    {
      onRequest: deps.uploadRateLimit,
      preHandler,
      schema: {
        summary: "Replace an exchange's freeze quantities from a CSV file",
        tags: ['market'],
        response: { 200: FreezeUploadResponse, 413: ErrorBody, 415: ErrorBody, ...errors },
      },
    },
    async (req) => {
      if (!req.isMultipart()) {
        throw unsupportedMediaType(
          'Send the CSV as multipart/form-data with a file field (and optionally an "exchange" field)',
        );
      }
      let exchange = 'NFO';
      let file: Buffer | undefined;
      try {
        for await (const part of req.parts()) {
          if (part.type === 'file') {
            file = await part.toBuffer();
          } else if (part.fieldname === 'exchange') {
            exchange = typeof part.value === 'string' ? part.value : JSON.stringify(part.value);
          }
        }
      } catch (err) {
        throw multipartError(err);
      }
      if (file === undefined) throw badRequest('No file in the form: send the CSV in a file field');
      const data = await freeze.upload(exchange, file);
      return {
        status: 'success' as const,
        message: `Loaded ${data.loaded} freeze quantities for ${data.exchange} (${data.skipped} lines skipped)`,
        data,
      };
    },
  );

  // ---- Holidays ----

  app.get(
    '/admin/api/holidays',
    {
      ...admin,
      schema: {
        summary: 'Market holidays of a year',
        tags: ['market'],
        querystring: YearQuery,
        response: { 200: HolidayListResponse, ...errors },
      },
    },
    async (req) => {
      const year = req.query.year ?? holidays.currentYear();
      return { status: 'success' as const, year, data: await holidays.list(year) };
    },
  );

  app.post(
    '/admin/api/holidays',
    {
      ...admin,
      schema: {
        summary: 'Add a market holiday',
        tags: ['market'],
        body: HolidayBody,
        response: { 200: HolidayResponse, ...errors },
      },
    },
    async (req) => {
      const data = await holidays.add(req.body);
      return { status: 'success' as const, message: `Holiday added on ${data.holiday_date}`, data };
    },
  );

  app.delete(
    '/admin/api/holidays/:id',
    {
      ...admin,
      schema: {
        summary: 'Delete a market holiday',
        tags: ['market'],
        params: IdParams,
        response: { 200: MessageResponse, ...errors },
      },
    },
    async (req) => {
      await holidays.remove(req.params.id);
      return { status: 'success' as const, message: 'Holiday deleted' };
    },
  );

  // ---- Timings ----

  app.get(
    '/admin/api/timings',
    {
      ...admin,
      schema: {
        summary: 'Market session timings',
        tags: ['market'],
        response: { 200: TimingsResponse, ...errors },
      },
    },
    async () => ({ status: 'success' as const, data: await timings.list() }),
  );

  app.put(
    '/admin/api/timings/:exchange',
    {
      ...admin,
      schema: {
        summary: "Update an exchange's session timing",
        tags: ['market'],
        params: ExchangeParams,
        body: TimingBody,
        response: { 200: TimingResponse, ...errors },
      },
    },
    async (req) => {
      const data = await timings.update(req.params.exchange, req.body.start_time, req.body.end_time);
      return { status: 'success' as const, message: `Timing updated for ${data.exchange}`, data };
    },
  );

  app.post(
    '/admin/api/timings/check',
    {
      ...admin,
      schema: {
        summary: 'Market sessions on a date',
        tags: ['market'],
        body: CheckBody,
        response: { 200: CheckResponse, ...errors },
      },
    },
    async (req) => {
      const date = requireIsoDate(req.body.date, 'date');
      return {
        status: 'success' as const,
        data: {
          date,
          weekend: isWeekend(date),
          sessions: calendar.sessionsOn(date).map(({ date: _d, ...s }) => s),
        },
      };
    },
  );

  // ---- Stats ----

  app.get(
    '/admin/api/stats',
    {
      ...admin,
      schema: {
        summary: 'Market calendar counts',
        tags: ['market'],
        response: { 200: StatsResponse, ...errors },
      },
    },
    async () => {
      const [freeze_count, holiday_count, timing_count] = await Promise.all([
        freeze.count(),
        holidays.count(),
        timings.count(),
      ]);
      return { status: 'success' as const, data: { freeze_count, holiday_count, timing_count } };
    },
  );
}
