/**
 * The Noren OMS (Shoonya, Flattrade) on loopback ({@link NorenStub}, on {@link OrderStub}),
 * answering in the shapes the NorenApi-Py README documents (github.com/kambalatech/NorenApi-Py:
 * login, place/modify/cancel, Order Book, Trade Book, single order history, Holdings, Positions,
 * Limits, get_quotes, get_time_price_series, get_daily_price_series) and Flattrade's
 * "Authentication" page (the request-code exchange):
 *
 * - every call is `POST <base>/<Endpoint>` with the form body `jData=<json>&jKey=<token>`; a
 *   missing or other `jKey` is answered `{"stat":"Not_Ok","emsg":"Session Expired :  Invalid
 *   Session Key"}` (the README's failure example), HTTP 200 as Noren answers refusals;
 * - `QuickAuth` checks `uid`, `pwd` = SHA-256 of the password, `factor2` = the TOTP, `vc`, and
 *   `appkey` = SHA-256 of `uid|<API key>` ("Invalid Input : Wrong Password" as documented); a
 *   success issues a new `susertoken`;
 * - `POST /trade/apitoken` (Flattrade, JSON) checks `api_key`, the issued request code and
 *   `api_secret` = SHA-256(api key + request code + secret) → `{"token","client","status":"Ok"}`;
 * - books answer `{"stat":"Not_Ok","emsg":"Error Occurred : 5 \"no data\""}` when empty, as the
 *   README's position book does; `Limits` reports as `marginused` the net value of the day's
 *   positions (the other stubs' funds rule), and `GetBasketMargin` a fifth of each leg's value
 *   at its `prc` (the instrument's price when 0).
 *
 * The token is never kept: each request's `jKey` is compared when the request is recorded and
 * dropped from its recorded body (`credentialOf` tells what it carried). With `fillMarketOrders`
 * on, a MKT order completes at placement at the instrument's price (`prices`, by `tsym`), as one
 * fill and in the net position; other orders rest (OPEN, or TRIGGER_PENDING for SL-LMT/SL-MKT).
 * What the stub checks but Noren does not document is refused with an `emsg` starting `stub:`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { OrderStub, positionFigures, type Body, type Credential } from './broker-order-stub-base.js';
import type { RecordedRequest, StubAnswer } from './broker-stub.js';

/** What the stub accepts: the app's values, the user's login, the session it starts with. */
export interface NorenStubCredentials {
  /** Shoonya: the vendor code (`vc`); Flattrade: the API key. */
  apiKey: string;
  /** Shoonya: the API key hashed into `appkey`; Flattrade: the API secret. */
  apiSecret: string;
  userId: string;
  password: string;
  totp: string;
  /** The session's token (`jKey`) the stub starts with. */
  token: string;
  /** Flattrade's one-time request code the stub issued. */
  requestCode: string;
}

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const ok = (body: Body): StubAnswer => ({
  status: 200,
  body: { request_time: '10:48:03 18-08-2026', stat: 'Ok', ...body },
});
export const norenFail = (emsg: string): StubAnswer => ({ status: 200, body: { stat: 'Not_Ok', emsg } });
export const NOREN_SESSION_EXPIRED = 'Session Expired :  Invalid Session Key';
export const NOREN_NO_DATA = 'Error Occurred : 5 "no data"';
const PRICE_TYPES = ['MKT', 'LMT', 'SL-LMT', 'SL-MKT'];
const PRODUCTS = ['C', 'M', 'I', 'H', 'B'];
const FINAL = ['COMPLETE', 'CANCELED', 'REJECTED'];

/** `2026-08-18 09:15:01` as the order book writes it (`09:15:01 18-08-2026`) and fills (`18-08-2026 09:15:01`). */
const norentm = (s: string) => `${s.slice(11)} ${s.slice(8, 10)}-${s.slice(5, 7)}-${s.slice(0, 4)}`;
const fltm = (s: string) => `${s.slice(8, 10)}-${s.slice(5, 7)}-${s.slice(0, 4)} ${s.slice(11)}`;

/** The stub; see the file comment. `base` is the variant's path (`/NorenWClientTP`, `/PiConnectTP`). */
export class NorenStub extends OrderStub {
  /** Quotes by `exch|token` (GetQuotes answers, the README's fields). */
  readonly quotes = new Map<string, Body>();
  /** TPSeries and EODChartData answers by `exch|token` and by `EXCH:TSYM`. */
  readonly series = new Map<string, unknown[]>();
  /** Instrument tokens by `exch|tsym` (the order book states them). */
  readonly tokens = new Map<string, string>();
  private readonly verdicts = new WeakMap<RecordedRequest, Credential>();
  private token: string;

  constructor(
    private readonly creds: NorenStubCredentials,
    readonly base: string,
  ) {
    super(
      () => '\u0000no authorization header is used',
      () => norenFail(NOREN_SESSION_EXPIRED),
    );
    this.token = creds.token;
    const push = this.requests.push.bind(this.requests);
    // Not enumerable: `requests` still compares equal to a plain array.
    Object.defineProperty(this.requests, 'push', {
      enumerable: false,
      value: (...items: RecordedRequest[]) => {
        for (const r of items) this.forgetToken(r);
        return push(...items);
      },
    });
    this.serve();
  }

  /** The token now (rotated by each login). */
  get currentToken(): string {
    return this.token;
  }

  override credentialOf(req: RecordedRequest): Credential | undefined {
    return this.verdicts.get(req);
  }

  /** The jData a request carried. */
  static jData(req: RecordedRequest): Body {
    return JSON.parse(new URLSearchParams(req.body).get('jData') ?? 'null') as Body;
  }

  /** Records whether `jKey` was the token, then drops it from the recorded body. */
  private forgetToken(r: RecordedRequest): void {
    const params = new URLSearchParams(r.body);
    const jKey = params.get('jKey');
    this.verdicts.set(r, jKey === null ? 'absent' : jKey === this.token ? 'exact' : 'wrong');
    if (jKey !== null) {
      params.delete('jKey');
      r.body = params.toString();
    }
  }

  /** Serves `Endpoint` under the base to requests whose `jKey` is the token and `uid` the user's. */
  private noren(endpoint: string, handler: (d: Body, req: RecordedRequest) => StubAnswer): void {
    this.authed('POST', `${this.base}/${endpoint}`, (req) => {
      const d = NorenStub.jData(req);
      if (d === null || typeof d !== 'object') return norenFail('Invalid Input :  jData is Missing.');
      if (d.uid !== this.creds.userId)
        return norenFail(`stub: uid ${String(d.uid)} is not the session's user`);
      return handler(d, req);
    });
  }

  private serve(): void {
    this.route('POST', `${this.base}/QuickAuth`, (req) => {
      const d = NorenStub.jData(req);
      const c = this.creds;
      if (req.body.includes('jKey=')) return norenFail('stub: QuickAuth takes no jKey');
      for (const f of ['apkversion', 'uid', 'pwd', 'factor2', 'vc', 'appkey', 'imei', 'source'])
        if (typeof d?.[f] !== 'string' || d[f] === '') return norenFail(`stub: ${f} is missing`);
      if (d.uid !== c.userId || d.pwd !== sha256(c.password))
        return norenFail('Invalid Input : Wrong Password');
      if (d.factor2 !== c.totp) return norenFail('Invalid Input : Invalid OTP');
      if (d.vc !== c.apiKey || d.appkey !== sha256(`${c.userId}|${c.apiSecret}`))
        return norenFail('Invalid Input : Invalid Vendor code or App key');
      this.token = randomBytes(32).toString('hex');
      return ok({
        susertoken: this.token,
        lastaccesstime: '1589899727',
        actid: c.userId,
        uname: 'STUB USER',
      });
    });
    this.route('POST', '/trade/apitoken', (req) => {
      const d = JSON.parse(req.body || 'null') as Body | null;
      const c = this.creds;
      const fail = (emsg: string) => ({
        status: 200,
        body: { token: '', client: '', status: 'Not_Ok', emsg },
      });
      if (d?.api_key !== c.apiKey) return fail('Invalid API key');
      if (d.request_code !== c.requestCode) return fail('Invalid request code');
      if (d.api_secret !== sha256(`${c.apiKey}${c.requestCode}${c.apiSecret}`))
        return fail('Invalid API secret');
      this.token = randomBytes(32).toString('hex');
      return { status: 200, body: { token: this.token, client: c.userId, status: 'Ok', emsg: '' } };
    });
    this.noren('PlaceOrder', (d) => this.place(d));
    this.noren('ModifyOrder', (d) => {
      const o = this.last(String(d.norenordno));
      if (!o || FINAL.includes(String(o.status))) return norenFail('Rejected : ORA:Order not found');
      if (d.tsym !== o.tsym || d.exch !== o.exch) return norenFail("stub: tsym and exch must be the order's");
      if (d.prctyp !== undefined && !PRICE_TYPES.includes(String(d.prctyp)))
        return norenFail('stub: bad prctyp');
      const next = {
        ...o,
        qty: d.qty ?? o.qty,
        prc: d.prc ?? o.prc,
        trgprc: d.trgprc ?? o.trgprc,
        prctyp: d.prctyp ?? o.prctyp,
      };
      this.orders.get(String(d.norenordno))!.push({ ...next, norentm: norentm(this.stamp()) });
      return ok({ result: d.norenordno });
    });
    this.noren('CancelOrder', (d) => {
      const o = this.last(String(d.norenordno));
      if (!o || FINAL.includes(String(o.status)))
        return norenFail('Rejected : ORA:Order not found to Cancel');
      this.orders
        .get(String(d.norenordno))!
        .push({ ...o, status: 'CANCELED', norentm: norentm(this.stamp()) });
      return ok({ result: d.norenordno });
    });
    this.noren('OrderBook', () => this.list(this.book()));
    this.noren('SingleOrdHist', (d) =>
      this.list([...(this.orders.get(String(d.norenordno)) ?? [])].reverse()),
    );
    this.noren('TradeBook', () =>
      this.list(
        this.fills.map((f) => ({
          stat: 'Ok',
          norenordno: f.orderId,
          uid: this.creds.userId,
          actid: this.creds.userId,
          exch: f.exchange,
          prctyp: 'MKT',
          ret: 'DAY',
          prd: f.product,
          flid: f.tradeId,
          fltm: fltm(f.at),
          trantype: f.side === 'BUY' ? 'B' : 'S',
          tsym: f.tradingsymbol,
          qty: String(f.quantity),
          token: String(f.token),
          fillshares: String(f.quantity),
          flqty: String(f.quantity),
          flprc: f.price.toFixed(2),
          remarks: f.tag,
        })),
      ),
    );
    this.noren('PositionBook', () =>
      this.list(
        this.netPositions().map((p) => {
          const ltp = this.priceOf(p.tradingsymbol);
          const x = positionFigures(p, ltp);
          return {
            stat: 'Ok',
            uid: this.creds.userId,
            actid: this.creds.userId,
            exch: p.exchange,
            tsym: p.tradingsymbol,
            token: String(p.token),
            prd: p.product,
            netqty: String(x.quantity),
            netavgprc: x.average.toFixed(2),
            daybuyqty: String(p.buyQty),
            daysellqty: String(p.sellQty),
            lp: ltp.toFixed(2),
            rpnl: x.realised.toFixed(2),
            urmtom: x.unrealised.toFixed(2),
          };
        }),
      ),
    );
    this.noren('Holdings', (d) =>
      d.prd ? this.list(this.holdingRows) : norenFail('Invalid Input : Missing uid or actid or prd.'),
    );
    this.noren('Limits', () =>
      ok({
        cash: this.cash.toFixed(2),
        payin: '0.00',
        payout: '0.00',
        brkcollamt: '0.00',
        marginused: this.marginUsed().toFixed(2),
        collateral: '0.00',
        rpnl: '0.00',
        urmtom: '0.00',
      }),
    );
    this.noren('GetQuotes', (d) => {
      const q = this.quotes.get(`${String(d.exch)}|${String(d.token)}`);
      return q ? ok(q) : norenFail(NOREN_NO_DATA);
    });
    this.noren('TPSeries', (d) => this.list(this.series.get(`${String(d.exch)}|${String(d.token)}`) ?? []));
    this.noren('EODChartData', (d) => this.list(this.series.get(String(d.sym)) ?? []));
    this.noren('GetBasketMargin', (d) => {
      const legs = [d, ...((d.basketlists as Body[] | undefined) ?? [])];
      let total = 0;
      for (const l of legs) {
        if (!PRICE_TYPES.includes(String(l.prctyp)) || !PRODUCTS.includes(String(l.prd)))
          return norenFail('stub: bad leg');
        // A fifth of the value, at the leg's price (the instrument's when it has none): the
        // intraday equity figure of broker-margin-stubs.ts's rule.
        const price = Number(l.prc) > 0 ? Number(l.prc) : this.priceOf(String(l.tsym));
        total += Number(l.qty) * price * 0.2;
      }
      return ok({ marginused: total.toFixed(2), marginusedtrade: (total * 0.9).toFixed(2) });
    });
  }

  /** Margin the day's positions use: their net value (the rule of the other stubs' funds). */
  private marginUsed(): number {
    return this.netPositions().reduce((a, p) => a + Math.abs(p.buyValue - p.sellValue), 0);
  }

  /** A book answer: the records, or the documented "no data" refusal when there are none. */
  private list(rows: unknown[]): StubAnswer {
    return rows.length > 0 ? { status: 200, body: rows } : norenFail(NOREN_NO_DATA);
  }

  private place(d: Body): StubAnswer {
    for (const f of [
      'actid',
      'exch',
      'tsym',
      'qty',
      'prc',
      'prd',
      'trantype',
      'prctyp',
      'ret',
      'ordersource',
    ])
      if (typeof d[f] !== 'string' || d[f] === '') return norenFail(`stub: ${f} is missing`);
    if (!PRICE_TYPES.includes(String(d.prctyp)) || !PRODUCTS.includes(String(d.prd)))
      return norenFail('stub: bad prctyp or prd');
    if ((d.prctyp === 'SL-LMT' || d.prctyp === 'SL-MKT') && !d.trgprc)
      return norenFail('stub: trgprc is missing');
    const scripted = this.scriptedRefusal();
    if (scripted) return scripted;
    const id = this.nextId(26081800000000);
    const at = this.stamp();
    const tsym = String(d.tsym);
    const token = this.tokens.get(`${String(d.exch)}|${tsym}`) ?? '';
    const record: Body = {
      stat: 'Ok',
      norenordno: id,
      uid: d.uid,
      actid: d.actid,
      exch: d.exch,
      tsym,
      token,
      qty: d.qty,
      prc: d.prc,
      trgprc: d.trgprc,
      dscqty: d.dscqty ?? '0',
      prd: d.prd,
      trantype: d.trantype,
      prctyp: d.prctyp,
      ret: d.ret,
      remarks: d.remarks,
      amo: d.amo === 'Yes' ? 'Yes' : 'No',
      fillshares: '0',
      avgprc: '0',
      norentm: norentm(at),
      status: String(d.prctyp).startsWith('SL') ? 'TRIGGER_PENDING' : 'OPEN',
    };
    const history: Body[] = [record];
    if (this.fillMarketOrders && d.prctyp === 'MKT') {
      const price = this.priceOf(tsym);
      const side = d.trantype === 'S' ? 'SELL' : 'BUY';
      const qty = Number(d.qty);
      this.fills.push({
        tradeId: String(this.fills.length + 1),
        orderId: id,
        tradingsymbol: tsym,
        exchange: String(d.exch),
        token,
        product: String(d.prd),
        side,
        quantity: qty,
        price,
        at,
        tag: String(d.remarks ?? ''),
      });
      history.push({
        ...record,
        status: 'COMPLETE',
        fillshares: String(qty),
        avgprc: price.toFixed(2),
        norentm: norentm(this.stamp()),
      });
    }
    this.orders.set(id, history);
    return this.omitOrderId ? ok({}) : ok({ norenordno: id });
  }
}

/** A started stub (close it after the test). */
export async function startNorenStub(creds: NorenStubCredentials, base: string): Promise<NorenStub> {
  return new NorenStub(creds, base).start();
}
