import multipart, { type MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { basename } from 'node:path/posix';
import type { Readable } from 'node:stream';
import { Type } from 'typebox';
import {
  badRequest,
  fileTooLarge,
  isAppError,
  unknownBroker,
  unsupportedMediaType,
} from '../../platform/errors.js';
import { ErrorBody } from '../../platform/http/error-body.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import type { SessionGuard } from '../auth/session.guard.js';
import type { ContractImportService } from './contract-import.service.js';
import type { MasterContractFormat } from './instrument.js';

/**
 * Largest instrument file an upload may carry (docs/rules/market.md#master-contract-upload): the
 * full Upstox file is ~25 MB unpacked (~4 MB gzip), Kite's ~10 MB, each Fyers segment file under
 * 3 MB, so 100 MiB leaves room for growth and a plain-text copy while bounding what one request
 * can make the server read.
 */
export const MAX_CONTRACT_UPLOAD_BYTES = 100 * 1024 * 1024;
const MAX_MB = MAX_CONTRACT_UPLOAD_BYTES / (1024 * 1024);
/** Room for the form's boundaries, part headers and the `broker` field around the file. */
const FORM_OVERHEAD_BYTES = 64 * 1024;

/** The `source` an upload's import run records: the file's name after this prefix. */
export const UPLOAD_SOURCE_PREFIX = 'upload:';

/** The uploaded file's name from a run's `source`, or undefined when the run was not an upload. */
export function uploadedFileName(source: string | null | undefined): string | undefined {
  return source?.startsWith(UPLOAD_SOURCE_PREFIX) ? source.slice(UPLOAD_SOURCE_PREFIX.length) : undefined;
}

// eslint-disable-next-line no-control-regex -- removing control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/**
 * A file name as the browser sent it, made safe to store and show: its last path segment, no
 * control characters (PostgreSQL text cannot hold NUL), at most 200 characters.
 */
function cleanFileName(raw: string | undefined): string {
  const name = basename((raw ?? '').replace(/\\/g, '/'))
    .replace(CONTROL_CHARACTERS, '')
    .trim();
  return (name || 'instrument file').slice(0, 200);
}

const UploadResponse = Type.Object({
  status: Type.Literal('success'),
  message: Type.String(),
  /** The import run (the status route's `import_id`), now the live contract. */
  import_id: Type.Integer(),
  broker: Type.String(),
  /** Instruments imported (the live contract's size). */
  total_symbols: Type.Integer(),
  skipped: Type.Integer(),
  /** Instruments by canonical exchange and instrument type. */
  by_exchange: Type.Record(Type.String(), Type.Record(Type.String(), Type.Integer())),
  /** Skipped rows by reason. */
  skipped_by_reason: Type.Record(Type.String(), Type.Integer()),
  duration_ms: Type.Integer(),
});

/** Multipart failures in words; the contract in use is unchanged in every case. */
function multipartError(err: unknown): Error {
  if (isAppError(err)) return err;
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge();
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT')
    return badRequest(
      'Too many form fields: send a "broker" field and the file; the contract in use is unchanged',
    );
  return badRequest('Malformed multipart/form-data body; the contract in use is unchanged');
}

const tooLarge = () =>
  fileTooLarge(`The file is larger than the ${MAX_MB} MB upload limit; the contract in use is unchanged`);

/**
 * The uploaded file's bytes as the importer reads them, with the size bound enforced: the multipart
 * parser stops a file at its limit and ends it as if it were whole, so a truncated file must fail
 * here rather than be imported. When the importer stops early (a bad file) the file stream is not
 * destroyed: the rest of the request is drained afterwards, so the answer reaches the browser.
 */
async function* bounded(file: MultipartFile['file'], exceeded: () => boolean): AsyncGenerator<Buffer> {
  for await (const chunk of file.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    if (exceeded()) throw tooLarge();
    yield chunk;
  }
  if (exceeded() || file.truncated) throw tooLarge();
}

/**
 * Reads and drops what is left of the request body, so an early answer (a refused file) is not
 * left behind unread bytes the browser is still sending. Past one more upload's worth the
 * connection is closed instead.
 */
async function drainRequest(req: FastifyRequest): Promise<void> {
  const raw = req.raw as Readable;
  if (raw.readableEnded || raw.destroyed) return;
  raw.unpipe();
  let left = MAX_CONTRACT_UPLOAD_BYTES + FORM_OVERHEAD_BYTES;
  await new Promise<void>((resolve) => {
    const done = () => {
      raw.off('data', onData);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      left -= chunk.length;
      if (left < 0) {
        raw.destroy();
        done();
      }
    };
    raw.on('data', onData);
    raw.once('end', done).once('close', done).once('error', done);
    raw.resume();
  });
}

/**
 * The form's parts up to its file: the `broker` field's value (when sent once, before the file)
 * and the file, its bytes not read yet. Parts are taken in the order they were sent, so a field
 * after the file is never seen, however small the file.
 */
async function readUntilFile(
  req: FastifyRequest,
): Promise<{ broker: string | undefined; file: MultipartFile | undefined }> {
  let broker: string | undefined;
  let brokers = 0;
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') return { broker, file: part };
      if (part.fieldname !== 'broker') continue;
      brokers += 1;
      if (brokers > 1) throw badRequest('Send one "broker" field', { broker: ['must be given once'] });
      broker = typeof part.value === 'string' ? part.value : String(part.value);
    }
  } catch (err) {
    throw multipartError(err);
  }
  return { broker, file: undefined };
}

/**
 * `POST /api/master-contract/upload` (administrator session, CSRF): a broker's instrument file
 * (plain CSV or gzip) sent as multipart/form-data — a `broker` field naming an importer, then the
 * file — streamed into the same import as the CLI and the download, whose progress the status
 * route shows meanwhile (docs/rules/market.md#master-contract-upload). Answered when the import
 * is done: 200 with its figures, or the refusal (the contract in use stays live). Registered in
 * a scope of its own, where the multipart parser lives.
 */
export async function masterContractUploadRoute(
  app: App,
  deps: {
    imports: ContractImportService;
    getFormat: (broker: string) => MasterContractFormat | undefined;
    /** Importer ids, for messages. */
    brokerIds: () => string[];
    guard: SessionGuard;
    rateLimit: RateLimitHook;
  },
): Promise<void> {
  await app.register(async (scope) => {
    const upload = scope as unknown as App;
    await upload.register(multipart, {
      limits: {
        fileSize: MAX_CONTRACT_UPLOAD_BYTES,
        files: 1,
        fields: 2,
        parts: 3,
        fieldSize: 256,
        fieldNameSize: 100,
        headerPairs: 20,
      },
    });
    const known = () => deps.brokerIds().join(', ');
    upload.post(
      '/api/master-contract/upload',
      {
        onRequest: deps.rateLimit,
        preHandler: deps.guard({ admin: true }),
        schema: {
          summary: "Upload and import a broker's instrument file (plain CSV or gzip)",
          description:
            `multipart/form-data: a \`broker\` field (the file's format: ${known()}) and then the file ` +
            `(at most ${MAX_MB} MB). The file is imported as it arrives; the answer comes when the import ` +
            'is done, and a failed import leaves the contract in use unchanged.',
          tags: ['market'],
          response: {
            200: UploadResponse,
            400: ErrorBody,
            401: ErrorBody,
            403: ErrorBody,
            409: ErrorBody,
            413: ErrorBody,
            415: ErrorBody,
            429: ErrorBody,
          },
        },
      },
      async (req) => {
        if (!req.isMultipart())
          throw unsupportedMediaType(
            'Send the instrument file as multipart/form-data: a "broker" field, then the file',
          );
        // A declared length over the bound is refused before a byte is read.
        const declared = Number(req.headers['content-length']);
        if (Number.isFinite(declared) && declared > MAX_CONTRACT_UPLOAD_BYTES + FORM_OVERHEAD_BYTES)
          throw tooLarge();
        try {
          const { broker: field, file: part } = await readUntilFile(req);
          if (part === undefined)
            throw badRequest('No file in the form: send the instrument file in a file field', {
              file: ['required'],
            });
          const broker = field?.trim().toLowerCase();
          if (!broker)
            throw badRequest(`Name the file's format in a "broker" field before the file (${known()})`, {
              broker: ['required'],
            });
          const format = deps.getFormat(broker);
          if (!format)
            throw unknownBroker(
              `No master contract importer for broker ${JSON.stringify(broker.slice(0, 32))} (known: ${known()})`,
              { broker: [`must be one of ${known()}`] },
            );
          let exceeded = false;
          part.file.once('limit', () => (exceeded = true));
          const name = cleanFileName(part.filename);
          const id = await deps.imports.begin(format.broker, `${UPLOAD_SOURCE_PREFIX}${name}`, 'downloading');
          let summary;
          try {
            summary = await deps.imports.run(
              id,
              format,
              bounded(part.file, () => exceeded),
            );
          } catch (err) {
            // `run` has recorded the failure; a cut-off file is too large whatever broke first.
            throw exceeded ? tooLarge() : err;
          }
          return {
            status: 'success' as const,
            message: `Imported ${summary.rows} instruments from ${name} (${summary.skipped} rows skipped)`,
            import_id: id,
            broker: summary.broker,
            total_symbols: summary.rows,
            skipped: summary.skipped,
            by_exchange: summary.by_exchange,
            skipped_by_reason: summary.skipped_by_reason,
            duration_ms: summary.duration_ms,
          };
        } finally {
          await drainRequest(req);
        }
      },
    );
  });
}
