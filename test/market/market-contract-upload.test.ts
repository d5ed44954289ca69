/**
 * `POST /api/master-contract/upload` on each database (docs/rules/market.md#master-contract-upload):
 * an administrator's multipart upload of a broker's instrument file (the real Upstox cut, gzip;
 * the real Kite cut, plain CSV) is streamed into the import the command line and the download use,
 * its progress on the status route while the file arrives, and it replaces the master contract. A
 * file that fails (truncated, another broker's, garbage, too large) leaves the earlier contract
 * live; bad requests are 4xx answers that change nothing.
 */
import { gzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_CONTRACT_UPLOAD_BYTES } from '../../src/modules/market/master-contract-upload.routes.js';
import { importContract } from '../helpers/contracts.js';
import { marketFixture } from '../helpers/market-fixtures.js';
import {
  asBrowser,
  createTestApp,
  createUser,
  describeEachDb,
  login,
  type Browser,
  type TestApp,
} from '../helpers/test-app.js';

const UPSTOX_FILE = 'upstox_complete_2026-02-05.csv.gz';
const UPSTOX_GZ = readFileSync(marketFixture('upstox', UPSTOX_FILE));
const KITE_FILE = 'kite_instruments_NSE_2025-10-06.csv';
const KITE_NSE = readFileSync(marketFixture('zerodha', KITE_FILE));
const URL_ = '/api/master-contract/upload';

interface Status {
  status: string;
  broker: string | null;
  message: string;
  import_id: number | null;
  source?: string | null;
  total_symbols: number;
  skipped: number;
  by_exchange: Record<string, Record<string, number>>;
  skipped_by_reason: Record<string, number>;
  is_ready: boolean;
  progress?: { bytes: number; rows: number; skipped: number } | null;
  live?: { import_id: number; broker: string; total_symbols: number } | null;
  upload?: { formats: string[]; max_bytes: number };
}

type Part = { name: string; value: string } | { name: string; filename: string; content: Buffer };

/** A multipart/form-data body as a browser builds it. */
function multipart(parts: Part[]): { body: Buffer; type: string } {
  const boundary = `----algodesk${randomBytes(8).toString('hex')}`;
  const out: Buffer[] = [];
  for (const p of parts) {
    out.push(Buffer.from(`--${boundary}\r\n`));
    if ('filename' in p)
      out.push(
        Buffer.from(
          `Content-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\n` +
            'Content-Type: application/octet-stream\r\n\r\n',
        ),
        p.content,
        Buffer.from('\r\n'),
      );
    else out.push(Buffer.from(`Content-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}\r\n`));
  }
  out.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(out), type: `multipart/form-data; boundary=${boundary}` };
}

const form = (broker: string | undefined, content: Buffer, filename = UPSTOX_FILE): Part[] => [
  ...(broker === undefined ? [] : [{ name: 'broker', value: broker }]),
  { name: 'file', filename, content },
];

describeEachDb('master contract upload', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  let trader: Browser;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    await createUser(t);
    await createUser(t, 'trader', 'trader horse battery staple');
    admin = await login(t);
    trader = await login(t, 'trader', 'trader horse battery staple');
  });
  afterAll(async () => {
    await t?.close();
  });
  // Each test starts a new window of the upload limit (10 a minute).
  beforeEach(() => t.clock.advance(60_000));

  const upload = (parts: Part[], b: Browser = admin): Promise<LightMyRequestResponse> => {
    const m = multipart(parts);
    return t.app.inject({
      method: 'POST',
      url: URL_,
      payload: m.body,
      headers: { 'content-type': m.type, ...asBrowser(b) },
    });
  };
  const status = async (): Promise<Status> =>
    (
      await t.app.inject({
        method: 'GET',
        url: '/api/master-contract/status',
        headers: { cookie: admin.cookie },
      })
    ).json() as Status;
  /** Instrument rows of every generation kept, or of one broker's newest import. */
  const instrumentRows = async (broker?: string) =>
    Number(
      (
        await t.db.database.db
          .selectFrom('instruments')
          .select((eb) => eb.fn.countAll().as('n'))
          .$if(broker !== undefined, (q) =>
            q.where('generation', '=', (eb) =>
              eb
                .selectFrom('contract_imports')
                .select((e) => e.fn.max('id').as('id'))
                .where('status', '=', 'success')
                .where('broker', '=', broker!),
            ),
          )
          .executeTakeFirstOrThrow()
      ).n,
    );
  const crude = () => t.services.market.contracts.get('CRUDEOIL19MAR26FUT', 'MCX');
  const sbin = () => t.services.market.contracts.get('SBIN', 'NSE');
  const total = (types: Record<string, number> | undefined) =>
    Object.values(types ?? {}).reduce((a, b) => a + b, 0);

  /** The contract in use and every instrument row, which a refused upload must leave as they are. */
  async function unchanged(before: Status, rows: number) {
    const after = await status();
    expect(after.is_ready).toBe(true);
    expect(after.live).toEqual(before.live);
    expect(await instrumentRows()).toBe(rows);
  }

  describe('an upload is imported by the same importer as the command line and the download', () => {
    it("the real Upstox file (gzip) gives the service import's figures and becomes the live contract", async () => {
      // The command line's path: the import service fed the same bytes.
      const cli = await importContract(t, 'upstox', UPSTOX_GZ);
      const r = await upload(form('upstox', UPSTOX_GZ));
      expect(r.statusCode, r.body).toBe(200);
      const body = r.json();
      expect(body).toMatchObject({
        status: 'success',
        broker: 'upstox',
        total_symbols: cli.rows,
        skipped: cli.skipped,
        by_exchange: cli.by_exchange,
        skipped_by_reason: cli.skipped_by_reason,
        message: `Imported ${cli.rows} instruments from ${UPSTOX_FILE} (${cli.skipped} rows skipped)`,
      });
      // The Upstox cut: 3,520 rows, 1,303 of them in segment NSE_FO, MCX futures and options.
      expect(body.total_symbols + body.skipped).toBe(3_520);
      expect(total(body.by_exchange.NFO)).toBe(1_303);
      expect(body.by_exchange.MCX).toMatchObject({ FUT: expect.any(Number), CE: expect.any(Number) });
      await t.services.market.contracts.whenIdle();
      const s = await status();
      expect(s).toMatchObject({
        status: 'success',
        broker: 'upstox',
        import_id: body.import_id,
        source: `upload:${UPSTOX_FILE}`,
        total_symbols: cli.rows,
        skipped_by_reason: cli.skipped_by_reason,
        is_ready: true,
        progress: null,
        live: { import_id: body.import_id, broker: 'upstox', total_symbols: cli.rows },
      });
      // Only the live generation is left in the table; the upload's own rows are what is found.
      expect(await instrumentRows()).toBe(cli.rows);
      expect(await crude()).toMatchObject({ token: expect.stringMatching(/^MCX_FO\|/), exchange: 'MCX' });
      expect(t.services.market.contracts.indexSize).toBe(cli.rows);
    });

    it('a plain CSV of another broker (Kite) replaces it; the broker field is trimmed and case-insensitive', async () => {
      const r = await upload(form(' Zerodha ', KITE_NSE, KITE_FILE));
      expect(r.statusCode, r.body).toBe(200);
      // The NSE cut: 579 rows, 117 of them indices.
      expect(r.json().total_symbols + r.json().skipped).toBe(579);
      expect(total(r.json().by_exchange.NSE_INDEX)).toBe(117);
      await t.services.market.contracts.whenIdle();
      expect((await status()).live).toMatchObject({
        broker: 'zerodha',
        total_symbols: r.json().total_symbols,
      });
      expect(await sbin()).toMatchObject({ token: '779521' });
      expect(await crude()).toBeUndefined();
      // Upstox's newest import stays, as Upstox's own instrument mapping
      // (docs/rules/brokers.md#broker-apps); nothing else does.
      expect(await instrumentRows('zerodha')).toBe(r.json().total_symbols);
      expect(await instrumentRows()).toBe(r.json().total_symbols + (await instrumentRows('upstox')));
    });

    it('the status route names what an upload takes', async () => {
      expect((await status()).upload).toEqual({
        formats: ['angel', 'dhan', 'flattrade', 'fyers', 'shoonya', 'upstox', 'zerodha'],
        max_bytes: MAX_CONTRACT_UPLOAD_BYTES,
      });
      expect(MAX_CONTRACT_UPLOAD_BYTES).toBe(100 * 1024 * 1024);
    });
  });

  describe('the import runs while the file arrives, with the download’s progress on the status route', () => {
    it('shows bytes and rows read before the upload has ended; a second import meanwhile is a 409', async () => {
      const before = await status();
      const m = multipart(form('upstox', UPSTOX_GZ));
      const whole = m.body;
      // Everything up to three quarters of the file (about 2,600 of its rows: past the first
      // 2,000-row batch, whose write reports the rows), the rest held back.
      const fileStart = whole.indexOf(UPSTOX_GZ.subarray(0, 64));
      const cut = fileStart + Math.floor((UPSTOX_GZ.length * 3) / 4);
      const body = new PassThrough();
      body.write(whole.subarray(0, cut));
      const answer = t.app.inject({
        method: 'POST',
        url: URL_,
        payload: body,
        headers: { 'content-type': m.type, ...asBrowser(admin) },
      });
      let running: Status | undefined;
      for (let i = 0; i < 400 && !running; i++) {
        const s = await status();
        if ((s.progress?.rows ?? 0) > 0) running = s;
        else await new Promise((r) => setTimeout(r, 25));
      }
      expect(running, 'the status never showed the upload running').toBeDefined();
      expect(running).toMatchObject({
        status: 'downloading',
        broker: 'upstox',
        message: `Importing the uploaded file ${UPSTOX_FILE}`,
        source: `upload:${UPSTOX_FILE}`,
        live: before.live,
      });
      expect(running!.progress!.rows).toBeGreaterThanOrEqual(2_000);
      expect(running!.progress!.bytes).toBeGreaterThan(0);
      expect(running!.progress!.bytes).toBeLessThan(UPSTOX_GZ.length);
      // One import at a time: an upload or a download while this one runs is refused.
      const second = await upload(form('zerodha', KITE_NSE, KITE_FILE));
      expect(second.statusCode).toBe(409);
      expect(second.json()).toMatchObject({ code: 'import_running' });
      const download = await t.app.inject({
        method: 'POST',
        url: '/api/master-contract/download',
        headers: asBrowser(admin),
        payload: { broker: 'upstox' },
      });
      expect(download.statusCode).toBe(409);

      body.end(whole.subarray(cut));
      const r = await answer;
      expect(r.statusCode, r.body).toBe(200);
      expect(r.json().total_symbols + r.json().skipped).toBe(3_520);
      await t.services.market.contracts.whenIdle();
      const done = await status();
      expect(done).toMatchObject({ status: 'success', progress: null, live: { broker: 'upstox' } });
      expect(await crude()).toBeDefined();
    });
  });

  describe('a failed upload leaves the previous contract live', () => {
    it('a truncated gzip fails after rows were written; they are deleted and the earlier contract stays', async () => {
      const before = await status();
      const rows = await instrumentRows();
      expect(before.live).toMatchObject({ broker: 'upstox' });
      const r = await upload(form('upstox', UPSTOX_GZ.subarray(0, Math.floor((UPSTOX_GZ.length * 3) / 4))));
      expect(r.statusCode).toBe(400);
      expect(r.json()).toMatchObject({ status: 'error', code: 'import_failed' });
      expect(r.json().message).toMatch(/^Import failed: /);
      // The run got past its first 2,000-row batch before the gzip broke off.
      const failed = await t.db.database.db
        .selectFrom('contract_imports')
        .select(['status', 'row_count', 'source'])
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      expect(failed).toMatchObject({ status: 'error', source: `upload:${UPSTOX_FILE}` });
      expect(Number(failed.row_count)).toBeGreaterThan(2_000);
      const s = await status();
      expect(s).toMatchObject({ status: 'error', is_ready: true, progress: null });
      expect(s.message).toMatch(/^Import failed: /);
      await unchanged(before, rows);
      expect(await crude()).toBeDefined();
      expect(t.services.market.contracts.indexSize).toBe(await instrumentRows('upstox'));
    });

    it('a file of another broker, garbage or no instrument at all is a 400 naming the problem', async () => {
      const before = await status();
      const rows = await instrumentRows();
      const cases: Array<[string, Buffer, RegExp]> = [
        ['upstox', KITE_NSE, /not an Upstox/i],
        ['zerodha', UPSTOX_GZ, /not a Zerodha instruments file/],
        ['fyers', UPSTOX_GZ, /not a Fyers/i],
        ['upstox', randomBytes(64 * 1024), /./],
        ['upstox', Buffer.alloc(0), /empty|no instrument/i],
        ['zerodha', gzipSync(Buffer.from('hello,world\n1,2\n')), /not a Zerodha instruments file/],
        // gzip's magic bytes, then no gzip stream.
        ['zerodha', Buffer.concat([Buffer.from([0x1f, 0x8b]), randomBytes(4096)]), /./],
        // The right header and not one usable row.
        ['upstox', Buffer.from(`${UPSTOX_HEADER}\n"x","y"\n`), /no instrument the importer could read/],
      ];
      for (const [broker, content, message] of cases) {
        const r = await upload(form(broker, content, 'file.csv'));
        expect(r.statusCode, `${broker} ${message.source}: ${r.body}`).toBe(400);
        expect(r.json().message).toMatch(message);
      }
      await unchanged(before, rows);
    });
    it('over a real connection, a file refused at its first line is answered once the rest is read and dropped', async () => {
      const before = await status();
      const rows = await instrumentRows();
      const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
      const send = async (broker: string, content: Buffer, name: string) => {
        const body = new FormData();
        body.append('broker', broker);
        body.append('file', new Blob([content]), name);
        const r = await fetch(`${address}${URL_}`, {
          method: 'POST',
          body,
          headers: { cookie: admin.cookie, 'x-csrf-token': admin.csrf },
        });
        return { status: r.status, body: (await r.json()) as { message: string } };
      };
      // 8 MB the Kite importer refuses at its header, sent in full by the client.
      const junk = await send('zerodha', randomBytes(8 * 1024 * 1024), 'junk.csv');
      expect(junk.status).toBe(400);
      expect(junk.body.message).toMatch(/^Import failed: not a Zerodha instruments file: header /);
      await unchanged(before, rows);
      // The connection is still good for the next upload.
      const good = await send('upstox', UPSTOX_GZ, UPSTOX_FILE);
      expect(good.status).toBe(200);
      await t.services.market.contracts.whenIdle();
      expect((await status()).live).toMatchObject({ broker: 'upstox' });
    });
  });

  describe('bad requests are 4xx answers that change nothing', () => {
    it('no file, no broker, the broker after the file, an unknown or repeated broker: 400 naming the field', async () => {
      const before = await status();
      const rows = await instrumentRows();
      const noFile = await upload([{ name: 'broker', value: 'upstox' }]);
      expect(noFile.statusCode).toBe(400);
      expect(noFile.json()).toMatchObject({ message: /No file in the form/, errors: { file: ['required'] } });
      const noBroker = await upload(form(undefined, KITE_NSE));
      expect(noBroker.statusCode).toBe(400);
      expect(noBroker.json()).toMatchObject({ errors: { broker: ['required'] } });
      expect(noBroker.json().message).toMatch(
        /"broker" field before the file \(angel, dhan, flattrade, fyers, shoonya, upstox, zerodha\)/,
      );
      const after = await upload([
        { name: 'file', filename: KITE_FILE, content: KITE_NSE },
        { name: 'broker', value: 'zerodha' },
      ]);
      expect(after.statusCode).toBe(400);
      expect(after.json().errors).toEqual({ broker: ['required'] });
      const unknown = await upload(form('nosuch', KITE_NSE));
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json()).toMatchObject({
        code: 'unknown_broker',
        message:
          'No master contract importer for broker "nosuch" (known: angel, dhan, flattrade, fyers, shoonya, upstox, zerodha)',
        errors: { broker: ['must be one of angel, dhan, flattrade, fyers, shoonya, upstox, zerodha'] },
      });
      const twice = await upload([
        { name: 'broker', value: 'zerodha' },
        { name: 'broker', value: 'upstox' },
        { name: 'file', filename: KITE_FILE, content: KITE_NSE },
      ]);
      expect(twice.statusCode).toBe(400);
      expect(twice.json().message).toMatch(/one "broker" field/);
      await unchanged(before, rows);
    });

    it('a body that is not multipart is a 415; a broken multipart body a 400', async () => {
      const before = await status();
      const rows = await instrumentRows();
      const json = await t.app.inject({
        method: 'POST',
        url: URL_,
        headers: asBrowser(admin),
        payload: { broker: 'upstox', file: 'instrument_key,…' },
      });
      expect(json.statusCode).toBe(415);
      expect(json.json().message).toMatch(/multipart\/form-data/);
      const noBoundary = await t.app.inject({
        method: 'POST',
        url: URL_,
        payload: 'abc',
        headers: { 'content-type': 'multipart/form-data', ...asBrowser(admin) },
      });
      expect(noBoundary.statusCode).toBe(400);
      // The form breaks off inside the file: the part never ends.
      const m = multipart(form('zerodha', KITE_NSE, KITE_FILE));
      const whole = m.body;
      const cutOff = await t.app.inject({
        method: 'POST',
        url: URL_,
        payload: whole.subarray(0, whole.length - 5_000),
        headers: { 'content-type': m.type, ...asBrowser(admin) },
      });
      expect(cutOff.statusCode).toBe(400);
      await unchanged(before, rows);
    });

    it('a trader, a request without the CSRF token and one without a session are refused', async () => {
      const before = await status();
      const rows = await instrumentRows();
      const m = multipart(form('zerodha', KITE_NSE, KITE_FILE));
      const send = (headers: Record<string, string>) =>
        t.app.inject({
          method: 'POST',
          url: URL_,
          payload: m.body,
          headers: { 'content-type': m.type, ...headers },
        });
      const asTrader = await send(asBrowser(trader));
      expect(asTrader.statusCode).toBe(403);
      expect(asTrader.json().code).toBe('forbidden');
      const noCsrf = await send({ cookie: admin.cookie });
      expect(noCsrf.statusCode).toBe(403);
      expect(noCsrf.json().code).toBe('csrf_failed');
      const anonymous = await send({});
      expect(anonymous.statusCode).toBe(401);
      await unchanged(before, rows);
    });

    it('a file over 100 MB is a 413: declared too long up front, or cut off at the bound as it streams', async () => {
      const before = await status();
      const rows = await instrumentRows();
      // The declared length alone refuses it, before a byte of the body is read.
      const m = multipart(form('upstox', UPSTOX_GZ));
      const declared = await t.app.inject({
        method: 'POST',
        url: URL_,
        payload: new PassThrough().end(m.body),
        headers: {
          'content-type': m.type,
          'content-length': String(MAX_CONTRACT_UPLOAD_BYTES + 1024 * 1024),
          ...asBrowser(admin),
        },
      });
      expect(declared.statusCode).toBe(413);
      expect(declared.json()).toMatchObject({
        code: 'file_too_large',
        message: 'The file is larger than the 100 MB upload limit; the contract in use is unchanged',
      });
      // Sent without a length (chunked), the upload is read up to the bound and then refused:
      // the Upstox header, then 60 KB lines (each a skipped row) past 100 MB.
      const streamed = multipart(form('upstox', Buffer.alloc(0)));
      const [open, close] = splitAtFile(streamed.body);
      const body = new PassThrough();
      const line = Buffer.from(`${'x'.repeat(60_000)}\n`);
      const chunk = Buffer.concat(Array.from({ length: 16 }, () => line));
      void (async () => {
        body.write(open);
        body.write(`${UPSTOX_HEADER}\n`);
        for (let sent = 0; sent <= MAX_CONTRACT_UPLOAD_BYTES + chunk.length; sent += chunk.length)
          if (!body.write(chunk)) await new Promise((r) => body.once('drain', r));
        body.end(close);
      })();
      const r = await t.app.inject({
        method: 'POST',
        url: URL_,
        payload: body,
        headers: { 'content-type': streamed.type, ...asBrowser(admin) },
      });
      expect(r.statusCode, r.body).toBe(413);
      expect(r.json().code).toBe('file_too_large');
      const s = await status();
      expect(s.status).toBe('error');
      await unchanged(before, rows);
    }, 60_000);

    it("stores the file's name without its path or control characters", async () => {
      const r = await upload(form('zerodha', KITE_NSE, 'C:\\Users\\me\\kite\u0007 instruments.csv'));
      expect(r.statusCode, r.body).toBe(200);
      expect(r.json().message).toMatch(/ from kite instruments\.csv \(/);
      await t.services.market.contracts.whenIdle();
      expect((await status()).source).toBe('upload:kite instruments.csv');
    });

    it('is limited to 10 uploads a minute per client', async () => {
      const codes: number[] = [];
      for (let i = 0; i < 11; i++) codes.push((await upload(form('nosuch', Buffer.from('x')))).statusCode);
      expect(codes.slice(0, 10)).toEqual(Array.from({ length: 10 }, () => 400));
      expect(codes[10]).toBe(429);
      t.clock.advance(60_000);
      expect((await upload(form('nosuch', Buffer.from('x')))).statusCode).toBe(400);
    });
  });
});

/** The Upstox file's header row, as the real file has it. */
const UPSTOX_HEADER =
  '"instrument_key","exchange_token","tradingsymbol","name","last_price","expiry","strike","tick_size","lot_size","instrument_type","option_type","exchange"';

/** A one-file form with an empty file, split where the file's bytes go. */
function splitAtFile(whole: Buffer): [Buffer, Buffer] {
  const at = whole.indexOf('\r\n\r\n', whole.indexOf('filename=')) + 4;
  return [whole.subarray(0, at), whole.subarray(at)];
}
