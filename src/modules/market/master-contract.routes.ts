import { Type } from 'typebox';
import type { Logger } from 'pino';
import { ErrorBody } from '../../platform/http/error-body.js';
import type { SessionGuard } from '../auth/session.guard.js';
import { badRequest } from '../../platform/errors.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import type { ContractImportService } from './contract-import.service.js';
import type { ContractsService } from './contracts.service.js';
import { masterContractUrl, openMasterContractDownload } from './contract-download.js';
import type { MasterContractFormat } from './instrument.js';
import { MAX_CONTRACT_UPLOAD_BYTES, uploadedFileName } from './master-contract-upload.routes.js';

const DownloadBody = Type.Object({
  /** Broker whose published file to fetch; defaults to `MASTER_CONTRACT_BROKER`. */
  broker: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
});

const DownloadResponse = Type.Object({
  status: Type.Literal('success'),
  message: Type.String(),
  import_id: Type.Integer(),
});

const Counts = Type.Record(Type.String(), Type.Record(Type.String(), Type.Integer()));

const StatusResponse = Type.Object({
  /** pending (never imported), downloading, success, error: the latest import run. */
  status: Type.Union([
    Type.Literal('pending'),
    Type.Literal('downloading'),
    Type.Literal('success'),
    Type.Literal('error'),
  ]),
  broker: Type.Union([Type.String(), Type.Null()]),
  message: Type.String(),
  import_id: Type.Union([Type.Integer(), Type.Null()]),
  /**
   * Where the latest run's file came from: the broker's URL for a download, `upload:<file name>`
   * for an upload, the file's name for the command line; null before any run.
   */
  source: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  /** Instruments of that run (live when `status` is success). */
  total_symbols: Type.Integer(),
  skipped: Type.Integer(),
  by_exchange: Counts,
  skipped_by_reason: Type.Record(Type.String(), Type.Integer()),
  started_at: Type.Union([Type.String(), Type.Null()]),
  last_updated: Type.Union([Type.String(), Type.Null()]),
  duration_ms: Type.Union([Type.Integer(), Type.Null()]),
  /** Whether a contract is live (an earlier success survives a failed run). */
  is_ready: Type.Boolean(),
  /** Whether searches are answered from the in-memory index (else from the database). */
  index_ready: Type.Boolean(),
  /**
   * How far the running download or upload has got on this instance (compressed bytes read, rows
   * read and skipped so far); null when none runs here (docs/rules/web.md#account-pages).
   */
  progress: Type.Optional(
    Type.Union([
      Type.Null(),
      Type.Object({ bytes: Type.Integer(), rows: Type.Integer(), skipped: Type.Integer() }),
    ]),
  ),
  /**
   * The contract in use: its run, broker, rows by exchange and when it was loaded. After a failed
   * run this is the earlier contract that stayed live; null when none is.
   */
  live: Type.Optional(
    Type.Union([
      Type.Null(),
      Type.Object({
        import_id: Type.Integer(),
        broker: Type.String(),
        total_symbols: Type.Integer(),
        by_exchange: Counts,
        loaded_at: Type.Union([Type.String(), Type.Null()]),
      }),
    ]),
  ),
  /**
   * What `POST /api/master-contract/upload` takes: the importers' ids (the `broker` field) and the
   * largest file in bytes (docs/rules/market.md#master-contract-upload).
   */
  upload: Type.Optional(Type.Object({ formats: Type.Array(Type.String()), max_bytes: Type.Integer() })),
});

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

/**
 * `/api/master-contract/*` (session): status for any user; download for administrators (the
 * upload is `master-contract-upload.routes.ts`). The download runs in the background; its
 * progress, and an upload's, is the status route.
 */
export function masterContractRoutes(
  app: App,
  deps: {
    imports: ContractImportService;
    contracts: ContractsService;
    getFormat: (broker: string) => MasterContractFormat | undefined;
    /** Importer ids (the upload's formats). */
    brokerIds: () => string[];
    defaultBroker: string | undefined;
    baseUrl: string | undefined;
    guard: SessionGuard;
    rateLimit: RateLimitHook;
    logger: Logger;
  },
): void {
  const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 409: ErrorBody, 429: ErrorBody };
  const upload = { formats: deps.brokerIds(), max_bytes: MAX_CONTRACT_UPLOAD_BYTES };
  app.post(
    '/api/master-contract/download',
    {
      onRequest: deps.rateLimit,
      preHandler: deps.guard({ admin: true }),
      schema: {
        summary: "Download and import a broker's master contract (in the background)",
        tags: ['market'],
        body: Type.Optional(DownloadBody),
        response: { 202: DownloadResponse, ...errors },
      },
    },
    async (req, reply) => {
      const broker = (req.body?.broker ?? deps.defaultBroker)?.trim().toLowerCase();
      if (!broker)
        throw badRequest('No broker given and MASTER_CONTRACT_BROKER is not set', { broker: ['required'] });
      const format = deps.getFormat(broker);
      if (!format)
        throw badRequest(`No master contract importer for broker ${JSON.stringify(broker.slice(0, 32))}`);
      // The run records where the file came from, without any credentials in the URL.
      const source = new URL(masterContractUrl(broker, deps.baseUrl));
      source.username = '';
      source.password = '';
      const id = await deps.imports.begin(broker, source.href, 'downloading');
      void (async () => {
        try {
          const body = await openMasterContractDownload(broker, deps.baseUrl);
          await deps.imports.run(id, format, body);
        } catch (err) {
          // `run` records its own failures; a failed request is recorded here.
          await deps.imports.abandon(id, err);
        }
      })();
      return reply
        .code(202)
        .send({ status: 'success' as const, message: 'Master contract download started', import_id: id });
    },
  );

  app.get(
    '/api/master-contract/status',
    {
      preHandler: deps.guard(),
      schema: {
        summary: 'Master contract import status',
        tags: ['market'],
        response: { 200: StatusResponse, 401: ErrorBody },
      },
    },
    async () => {
      const latest = await deps.imports.latest();
      const live = await deps.imports.liveGeneration();
      const liveRun = live === null ? undefined : live === latest?.id ? latest : await deps.imports.get(live);
      const liveSummary = (liveRun?.summary ? JSON.parse(liveRun.summary) : null) as {
        by_exchange?: Record<string, Record<string, number>>;
      } | null;
      const liveView = liveRun
        ? {
            import_id: liveRun.id,
            broker: liveRun.broker,
            total_symbols: liveRun.row_count,
            by_exchange: liveSummary?.by_exchange ?? {},
            loaded_at: iso(liveRun.finished_at === null ? null : Number(liveRun.finished_at)),
          }
        : null;
      // Only while the run is still going: its row says it ended before the import service has
      // let go of it.
      const progress =
        latest && (latest.status === 'downloading' || latest.status === 'pending')
          ? deps.imports.progress(latest.id)
          : null;
      if (!latest)
        return {
          status: 'pending' as const,
          broker: deps.defaultBroker ?? null,
          message: 'No master contract has been imported yet',
          import_id: null,
          source: null,
          total_symbols: 0,
          skipped: 0,
          by_exchange: {},
          skipped_by_reason: {},
          started_at: null,
          last_updated: null,
          duration_ms: null,
          is_ready: false,
          index_ready: deps.contracts.indexReady,
          progress: null,
          live: null,
          upload,
        };
      const summary = (latest.summary ? JSON.parse(latest.summary) : null) as {
        by_exchange?: Record<string, Record<string, number>>;
        skipped_by_reason?: Record<string, number>;
      } | null;
      const uploaded = uploadedFileName(latest.source);
      const messages = {
        pending: 'Import queued',
        downloading:
          uploaded === undefined
            ? 'Downloading and importing the master contract'
            : `Importing the uploaded file ${uploaded}`,
        success: `Master contract ready: ${latest.row_count} instruments`,
        error: `Import failed: ${latest.message ?? 'unknown error'}`,
      };
      return {
        status: latest.status,
        broker: latest.broker,
        message: messages[latest.status],
        import_id: latest.id,
        source: latest.source,
        total_symbols: latest.row_count,
        skipped: latest.skipped_count,
        by_exchange: summary?.by_exchange ?? {},
        skipped_by_reason: summary?.skipped_by_reason ?? {},
        started_at: iso(Number(latest.started_at)),
        last_updated: iso(latest.finished_at === null ? null : Number(latest.finished_at)),
        duration_ms:
          latest.finished_at === null ? null : Number(latest.finished_at) - Number(latest.started_at),
        is_ready: live !== null,
        index_ready: deps.contracts.indexReady,
        progress,
        live: liveView,
        upload,
      };
    },
  );
}
