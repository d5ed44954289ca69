/**
 * The world of the market admin suites (`/admin/api/freeze`, `/admin/api/holidays`,
 * `/admin/api/timings`, `/admin/api/stats`): a fresh app per test with a logged-in administrator,
 * requests from that administrator's browser (CSRF token on writes), hand-built multipart uploads
 * of NSE's qtyfreeze CSV, and the freeze table and market-admin service read back.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach } from 'vitest';
import type { Dialect } from '../../src/platform/db/database.js';
import { marketFixture } from './market-fixtures.js';
import { appWithAdmin, asBrowser, type Browser, type TestApp } from './test-app.js';

export const NSE_CSV = readFileSync(marketFixture('freeze_qty', 'nse_qtyfreeze_2025-12.csv'));
const IST = 330 * 60_000;
/** Epoch ms of an IST wall-clock time. */
export const ist = (date: string, hhmm: string) => Date.parse(`${date}T${hhmm}:00Z`) - IST;

export type Part = { name: string; value: string } | { name: string; filename: string; content: Buffer };

/** A multipart/form-data body built by hand, as a browser sends it. */
export function multipart(parts: Part[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----algodesk${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n`));
    if ('filename' in p) {
      chunks.push(
        Buffer.from(
          `Content-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: text/csv\r\n\r\n`,
        ),
        p.content,
        Buffer.from('\r\n'),
      );
    } else {
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}\r\n`));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

export const csv = (...lines: string[]) => Buffer.from(lines.join('\n') + '\n');

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface MarketAdminWorld {
  /** This test's app; a test may replace it (and `admin`), the hook closes whichever is here. */
  t: TestApp;
  admin: Browser;
  /** A request from `b`'s browser: the session cookie, plus the CSRF token unless a GET. */
  send(method: Method, url: string, payload?: object, b?: Browser): Promise<LightMyRequestResponse>;
  get(url: string): Promise<LightMyRequestResponse>;
  post(url: string, payload: object): Promise<LightMyRequestResponse>;
  put(url: string, payload: object): Promise<LightMyRequestResponse>;
  del(url: string): Promise<LightMyRequestResponse>;
  /** A multipart POST to `/admin/api/freeze/upload` from `b`'s browser. */
  upload(parts: Part[], b?: Browser): Promise<LightMyRequestResponse>;
  /** The parts of an upload: the file, after an `exchange` field when one is given. */
  file(content: Buffer, exchange?: string): Part[];
  /** The `qty_freeze` rows by exchange, then symbol. */
  freezeRows(): ReturnType<typeof selectFreezeRows>;
  /** The market-admin service of this test's app. */
  market(): TestApp['services']['marketAdmin'];
}

const selectFreezeRows = (t: TestApp) =>
  t.db.database.db.selectFrom('qty_freeze').selectAll().orderBy('exchange').orderBy('symbol').execute();

/** Hooks for a market admin suite: a fresh app and administrator before each test, closed after. */
export function useMarketAdmin(dialect: Dialect): MarketAdminWorld {
  const w: MarketAdminWorld = {
    t: undefined as unknown as TestApp,
    admin: undefined as unknown as Browser,
    send: (method, url, payload, b = w.admin) =>
      w.t.app.inject({
        method,
        url,
        ...(payload === undefined ? {} : { payload }),
        headers: method === 'GET' ? { cookie: b.cookie } : asBrowser(b),
      }),
    get: (url) => w.send('GET', url),
    post: (url, payload) => w.send('POST', url, payload),
    put: (url, payload) => w.send('PUT', url, payload),
    del: (url) => w.send('DELETE', url),
    upload: (parts, b = w.admin) => {
      const m = multipart(parts);
      return w.t.app.inject({
        method: 'POST',
        url: '/admin/api/freeze/upload',
        payload: m.payload,
        headers: { ...m.headers, ...asBrowser(b) },
      });
    },
    file: (content, exchange) => [
      ...(exchange === undefined ? [] : [{ name: 'exchange', value: exchange }]),
      { name: 'file', filename: 'qtyfreeze.csv', content },
    ],
    freezeRows: () => selectFreezeRows(w.t),
    market: () => w.t.services.marketAdmin,
  };
  beforeEach(async () => {
    ({ t: w.t, admin: w.admin } = await appWithAdmin(dialect));
  });
  afterEach(() => w.t.close());
  return w;
}
