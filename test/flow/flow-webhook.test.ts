/**
 * Flow workflows: a flow with a condition and a place-order node runs from
 * `/flow/webhook/<token>/SBIN` with the secret, answers each node's outcome and its order is in the
 * analyzer order book (docs/rules/flow.md#flow-runs); without the secret it is refused, before any
 * fault of the body is told (#flow-webhook); a condition that does not hold skips or jumps; a
 * failing node fails the run; the same delivery within 60 s runs nothing.
 */
import { afterEach, expect, it } from 'vitest';
import { describeEachDb } from '../helpers/test-app.js';
import {
  FLOW_TOKEN,
  HOST_SERVER,
  answer,
  flowOf,
  placed,
  signalFlow,
  startFlow,
  type FlowHarness,
} from '../helpers/flow.js';

let h: FlowHarness;
afterEach(async () => {
  await h?.close();
});

const go = (over: Record<string, unknown> = {}) => ({ signal: 'go', action: 'BUY', qty: 5, ...over });

describeEachDb('flow webhook: the issue’s flow', (dialect) => {
  it('condition + place_order from /flow/webhook/<token>/SBIN with the secret: 200 ok, each node’s outcome, the order in the analyzer book, the run listed without the secret', async () => {
    h = await startFlow(dialect);
    const created = await h.create(signalFlow());
    const { id, token, secret, url } = created;
    expect(token).toMatch(FLOW_TOKEN);
    expect(url).toBe(`${HOST_SERVER}/flow/webhook/${token}`);
    expect(secret).toEqual(expect.any(String));
    expect(secret.length).toBeGreaterThanOrEqual(20);
    expect(created.res.headers['cache-control']).toBe('no-store');
    expect(created.view).toMatchObject({ name: 'signal', enabled: true });
    expect(Object.keys(created.view).sort()).toEqual(
      ['created_at', 'definition', 'enabled', 'id', 'name', 'updated_at'].sort(),
    );

    const res = await h.hook(token, { ...go(), secret }, { symbol: 'SBIN' });
    expect(res.statusCode).toBe(200);
    const a = answer(res);
    expect(a).toMatchObject({ status: 'success', result: 'ok', flow_id: id, run_id: expect.any(Number) });
    expect(a.message).toEqual(expect.any(String));
    expect(a.nodes).toEqual([
      { id: 'gate', type: 'condition', status: 'done', result: true },
      {
        id: 'entry',
        type: 'place_order',
        status: 'done',
        orderid: expect.any(String),
        message: expect.stringContaining('SBIN'),
      },
    ]);
    // The order is the analyzer book's, with the body's side and quantity, MIS MARKET by default.
    const book = await h.orders();
    expect(book).toHaveLength(1);
    expect(book[0]).toMatchObject({
      symbol: 'SBIN',
      exchange: 'NSE',
      action: 'BUY',
      quantity: 5,
      product: 'MIS',
      pricetype: 'MARKET',
      order_status: 'complete',
      // The flow's name is the order's strategy.
      strategy: 'signal',
    });
    expect(String(book[0]!.orderid)).toBe(a.nodes![1]!.orderid);
    expect(await h.position('SBIN')).toBe(5);

    // The run: newest first, with the symbol, the body (secret removed) and the node outcomes.
    const runs = await h.runs(id);
    expect(runs).toHaveLength(1);
    const run = runs[0]!;
    expect(run).toMatchObject({
      id: a.run_id,
      result: 'ok',
      http_status: 200,
      symbol: 'SBIN',
      message: a.message,
      ip: expect.any(String),
    });
    expect(run.payload).toEqual(go());
    expect(run.nodes).toEqual(a.nodes);
    expect(typeof run.duration_ms).toBe('number');
    expect(run.ts).toBe(h.t.clock.now());
  });

  it('the secret in the query works the same; the URL symbol is upper-cased; the body’s side is read in any case', async () => {
    h = await startFlow(dialect);
    const { id, token, secret } = await h.create(signalFlow());
    const res = await h.hook(token, go({ action: 'sell', qty: '3' }), {
      symbol: 'infy',
      query: `secret=${encodeURIComponent(secret)}`,
    });
    expect(res.statusCode).toBe(200);
    expect(answer(res)).toMatchObject({ result: 'ok', nodes: [{ status: 'done' }, { status: 'done' }] });
    expect(await placed(h)).toEqual(['SELL INFY×3 MIS']);
    expect((await h.runs(id))[0]).toMatchObject({ symbol: 'INFY', result: 'ok' });
  });

  it('without a symbol in the URL the flow’s own symbol is {{symbol}}; with neither the node fails naming {{symbol}}', async () => {
    h = await startFlow(dialect);
    const withDefault = await h.create(
      signalFlow({
        name: 'reliance',
        definition: { symbol: 'RELIANCE', nodes: (signalFlow().definition as { nodes: unknown[] }).nodes },
      }),
    );
    const a = answer(await h.hook(withDefault.token, { ...go({ qty: 2 }), secret: withDefault.secret }));
    expect(a).toMatchObject({ result: 'ok' });
    expect(await placed(h)).toEqual(['BUY RELIANCE×2 MIS']);
    // The URL's symbol wins over the flow's.
    await h.advance(1_000);
    const b = answer(
      await h.hook(withDefault.token, { ...go({ qty: 2 }), secret: withDefault.secret }, { symbol: 'SBIN' }),
    );
    expect(b).toMatchObject({ result: 'ok' });
    expect(await placed(h)).toEqual(['BUY RELIANCE×2 MIS', 'BUY SBIN×2 MIS']);
    const bare = await h.create(signalFlow({ name: 'bare' }));
    const c = answer(await h.hook(bare.token, { ...go(), secret: bare.secret }));
    expect(c).toMatchObject({ status: 'error', result: 'failed' });
    expect(c.nodes![1]).toMatchObject({
      id: 'entry',
      status: 'failed',
      message: expect.stringContaining('{{symbol}}'),
    });
    expect(await placed(h)).toHaveLength(2);
  });
});

describeEachDb('flow webhook: the secret', (dialect) => {
  it('missing or wrong (body or query): 403 rejected_secret, nothing run, a run row recorded without the body', async () => {
    h = await startFlow(dialect);
    const { id, token, secret } = await h.create(signalFlow());
    const other = await h.create(signalFlow({ name: 'other' }));
    const attempts: [unknown, string | undefined][] = [
      [go(), undefined],
      [{ ...go(), secret: '' }, undefined],
      [{ ...go(), secret: `${secret}x` }, undefined],
      [
        { ...go(), secret: secret.toUpperCase() === secret ? secret.toLowerCase() : secret.toUpperCase() },
        undefined,
      ],
      [{ ...go(), secret: other.secret }, undefined],
      [{ ...go(), secret: 12345 }, undefined],
      [{ ...go(), secret: [secret] }, undefined],
      [{ ...go(), secret: { value: secret } }, undefined],
      [{ ...go(), secret: 'x'.repeat(5_000) }, undefined],
      [go(), 'secret='],
      [go(), `secret=${encodeURIComponent(other.secret)}`],
      [go(), `Secret=${encodeURIComponent(secret)}`],
      [go(), `token=${encodeURIComponent(secret)}`],
    ];
    for (const [body, query] of attempts) {
      const label = `${JSON.stringify(body).slice(0, 60)} ?${query ?? ''}`;
      const res = await h.hook(token, body, { symbol: 'SBIN', ...(query !== undefined ? { query } : {}) });
      expect(res.statusCode, label).toBe(403);
      const a = answer(res);
      expect(a, label).toMatchObject({ status: 'error', result: 'rejected_secret' });
      expect(a.message, label).toMatch(/secret/i);
      expect(a.nodes, label).toBeUndefined();
      expect(a.run_id, label).toBeUndefined();
    }
    expect(await h.orders()).toEqual([]);
    const runs = await h.runs(id, 500);
    expect(runs).toHaveLength(attempts.length);
    expect(
      runs.every(
        (r) =>
          r.result === 'rejected_secret' && r.http_status === 403 && r.nodes === null && r.payload === null,
      ),
    ).toBe(true);
    // Still a working flow with the right secret.
    expect(answer(await h.hook(token, { ...go(), secret }, { symbol: 'SBIN' }))).toMatchObject({
      result: 'ok',
    });
  });

  it('a malformed body without the secret is still 403 (the secret comes first); with it, 400 rejected_payload for every fault; an empty body is {}', async () => {
    h = await startFlow(dialect);
    const { id, token, secret } = await h.create(signalFlow());
    const bad = [
      '{"signal":',
      'signal=go&action=BUY',
      '[]',
      '[{"secret":"x"}]',
      '"go"',
      'null',
      '42',
      'true',
    ];
    for (const body of bad) {
      const res = await h.hook(token, body, { symbol: 'SBIN' });
      expect(res.statusCode, body).toBe(403);
      expect(answer(res), body).toMatchObject({ result: 'rejected_secret' });
    }
    const q = `secret=${encodeURIComponent(secret)}`;
    for (const body of bad) {
      const res = await h.hook(token, body, { symbol: 'SBIN', query: q });
      expect(res.statusCode, body).toBe(400);
      const a = answer(res);
      expect(a, body).toMatchObject({ status: 'error', result: 'rejected_payload' });
      expect(a.message.length, body).toBeGreaterThan(0);
      expect(a.nodes, body).toBeUndefined();
    }
    // NUL characters and a symbol that is not a symbol: rejected_payload too, with the secret.
    const nul = await h.hook(token, `{"signal":"g\\u0000o","secret":${JSON.stringify(secret)}}`, {
      symbol: 'SBIN',
    });
    expect(nul.statusCode).toBe(400);
    expect(answer(nul)).toMatchObject({ result: 'rejected_payload' });
    const sym = await h.hook(token, { ...go(), secret }, { symbol: encodeURIComponent('SB IN') });
    expect(sym.statusCode).toBe(400);
    expect(answer(sym)).toMatchObject({
      result: 'rejected_payload',
      message: expect.stringMatching(/symbol/i),
    });
    // An empty body with the secret in the query is read as {}: the run starts and the condition
    // fails on the missing field (a 200 `failed`, not a payload refusal).
    const empty = await h.hook(token, '', { symbol: 'SBIN', query: q });
    expect(empty.statusCode).toBe(200);
    const e = answer(empty);
    expect(e).toMatchObject({ status: 'error', result: 'failed' });
    expect(e.nodes).toMatchObject([
      { id: 'gate', status: 'failed', message: expect.stringContaining('{{webhook.signal}}') },
      { id: 'entry', status: 'skipped' },
    ]);
    expect(await h.orders()).toEqual([]);
    const runs = (await h.runs(id, 500)).reverse();
    expect(runs.map((r) => [r.result, r.http_status])).toEqual([
      ...bad.map(() => ['rejected_secret', 403]),
      ...bad.map(() => ['rejected_payload', 400]),
      ['rejected_payload', 400],
      ['rejected_payload', 400],
      ['failed', 200],
    ]);
  });

  it('a disabled flow is 403 rejected_disabled whatever the secret; enabled again it runs', async () => {
    h = await startFlow(dialect);
    const { id, token, secret } = await h.create(signalFlow({ enabled: false }));
    for (const body of [{ ...go(), secret }, go(), '{"x":']) {
      const res = await h.hook(token, body, { symbol: 'SBIN' });
      expect(res.statusCode).toBe(403);
      expect(answer(res)).toMatchObject({ status: 'error', result: 'rejected_disabled' });
    }
    expect((await h.manage('PUT', `/${id}`, { enabled: true })).statusCode).toBe(200);
    expect(answer(await h.hook(token, { ...go(), secret }, { symbol: 'SBIN' }))).toMatchObject({
      result: 'ok',
    });
    expect(await placed(h)).toEqual(['BUY SBIN×5 MIS']);
    expect((await h.runs(id)).map((r) => r.result).reverse()).toEqual([
      'rejected_disabled',
      'rejected_disabled',
      'rejected_disabled',
      'ok',
    ]);
  });
});

describeEachDb('flow webhook: conditions, jumps and failures', (dialect) => {
  it('a condition that does not hold ends the run: later nodes skipped, no order, still a 200 ok', async () => {
    h = await startFlow(dialect);
    const { id, token, secret } = await h.create(signalFlow());
    const res = await h.hook(token, { ...go({ signal: 'wait' }), secret }, { symbol: 'SBIN' });
    expect(res.statusCode).toBe(200);
    const a = answer(res);
    expect(a).toMatchObject({ status: 'success', result: 'ok' });
    expect(a.nodes).toEqual([
      { id: 'gate', type: 'condition', status: 'done', result: false },
      { id: 'entry', type: 'place_order', status: 'skipped', message: expect.stringContaining('gate') },
    ]);
    expect(await h.orders()).toEqual([]);
    expect((await h.runs(id))[0]!.nodes).toEqual(a.nodes);
  });

  it('`else` jumps forward: the nodes between are skipped and the run goes on from the target', async () => {
    h = await startFlow(dialect);
    const { token, secret } = await h.create(
      flowOf('jump', [
        {
          id: 'big',
          type: 'condition',
          when: { kind: 'compare', left: '{{webhook.qty}}', op: 'gte', right: 10 },
          else: 'small',
        },
        { id: 'buy-big', type: 'place_order', action: 'BUY', quantity: '{{webhook.qty}}' },
        { id: 'hedge', type: 'place_order', symbol: 'INFY', action: 'SELL', quantity: 1 },
        { id: 'small', type: 'place_order', symbol: 'RELIANCE', action: 'BUY', quantity: 1 },
      ]),
    );
    const small = answer(await h.hook(token, { qty: 2, secret }, { symbol: 'SBIN' }));
    expect(small).toMatchObject({ status: 'success', result: 'ok' });
    expect(small.nodes!.map((n) => [n.id, n.status, n.result])).toEqual([
      ['big', 'done', false],
      ['buy-big', 'skipped', undefined],
      ['hedge', 'skipped', undefined],
      ['small', 'done', undefined],
    ]);
    expect(await placed(h)).toEqual(['BUY RELIANCE×1 MIS']);
    // Numbers compare as numbers: "12" ≥ 10 (as text "12" < "10" would be false).
    const big = answer(await h.hook(token, { qty: '12', secret }, { symbol: 'SBIN' }));
    expect(big.nodes!.map((n) => [n.id, n.status])).toEqual([
      ['big', 'done'],
      ['buy-big', 'done'],
      ['hedge', 'done'],
      ['small', 'done'],
    ]);
    expect(big.nodes![0]!.result).toBe(true);
    expect(await placed(h)).toEqual([
      'BUY RELIANCE×1 MIS',
      'BUY SBIN×12 MIS',
      'SELL INFY×1 MIS',
      'BUY RELIANCE×1 MIS',
    ]);
  });

  it('a failing node fails the run (200, result failed, status error), later nodes skipped, the message naming the node', async () => {
    h = await startFlow(dialect);
    const { id, token, secret } = await h.create(
      flowOf('fails', [
        { id: 'entry', type: 'place_order', action: '{{webhook.action}}', quantity: '{{webhook.qty}}' },
        { id: 'after', type: 'place_order', symbol: 'INFY', action: 'BUY', quantity: 1 },
      ]),
    );
    const cases: [Record<string, unknown>, string | undefined, RegExp][] = [
      [{ action: 'BUY', qty: 'abc' }, 'SBIN', /quantity/],
      [{ action: 'BUY', qty: 0 }, 'SBIN', /quantity/],
      [{ action: 'BUY', qty: 1.5 }, 'SBIN', /quantity/],
      [{ action: 'HOLD', qty: 1 }, 'SBIN', /action/],
      [{ action: 'BUY' }, 'SBIN', /\{\{webhook\.qty\}\}/],
      [{ action: 'BUY', qty: { n: 1 } }, 'SBIN', /\{\{webhook\.qty\}\}/],
      [{ action: 'BUY', qty: null }, 'SBIN', /\{\{webhook\.qty\}\}/],
      // A value is rendered once, never evaluated again: a template in the body is just text.
      [{ action: 'BUY', qty: '{{webhook.n}}', n: 3 }, 'SBIN', /quantity "\{\{webhook\.n\}\}"/],
      // A symbol the master contract does not hold: the pipeline's refusal is the node's message.
      [{ action: 'BUY', qty: 1 }, 'TCS', /symbol|TCS/i],
    ];
    for (const [body, symbol, why] of cases) {
      const label = `${JSON.stringify(body)} ${symbol}`;
      const res = await h.hook(token, { ...body, secret }, symbol ? { symbol } : {});
      expect(res.statusCode, label).toBe(200);
      const a = answer(res);
      expect(a, label).toMatchObject({ status: 'error', result: 'failed', flow_id: id });
      expect(a.message, label).toMatch(/entry/);
      expect(a.nodes, label).toMatchObject([
        { id: 'entry', status: 'failed', message: expect.stringMatching(why) },
        { id: 'after', status: 'skipped', message: expect.stringContaining('entry') },
      ]);
      expect(a.nodes![0]!.orderid, label).toBeUndefined();
    }
    expect(await h.orders()).toEqual([]);
    const runs = await h.runs(id, 500);
    expect(runs).toHaveLength(cases.length);
    expect(
      runs.every((r) => r.result === 'failed' && r.http_status === 200 && r.nodes?.[0]?.status === 'failed'),
    ).toBe(true);
  });
});

describeEachDb('flow webhook: templates read the body’s own fields only', (dialect) => {
  it('an inherited name ({{webhook.toString}}) is not in the body; a __proto__ key in the body pollutes nothing', async () => {
    h = await startFlow(dialect);
    const { token, secret } = await h.create(
      flowOf('inherited', [
        { id: 'entry', type: 'place_order', action: 'BUY', quantity: '{{webhook.qty}}' },
        { id: 'odd', type: 'place_order', action: 'BUY', quantity: '{{webhook.toString}}' },
      ]),
    );
    // qty only under __proto__: JSON makes it an own key of that name, never the prototype.
    const polluted = await h.hook(
      token,
      `{"__proto__":{"qty":5,"polluted":true},"secret":${JSON.stringify(secret)}}`,
      { symbol: 'SBIN' },
    );
    expect(polluted.statusCode).toBe(200);
    expect(answer(polluted)).toMatchObject({
      result: 'failed',
      nodes: [
        { id: 'entry', status: 'failed', message: expect.stringContaining('{{webhook.qty}}') },
        { status: 'skipped' },
      ],
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).qty).toBeUndefined();
    const inherited = answer(await h.hook(token, { qty: 1, secret }, { symbol: 'SBIN' }));
    expect(inherited).toMatchObject({ result: 'failed' });
    expect(inherited.nodes).toMatchObject([
      { id: 'entry', status: 'done' },
      { id: 'odd', status: 'failed', message: expect.stringContaining('{{webhook.toString}}') },
    ]);
    expect(await placed(h)).toEqual(['BUY SBIN×1 MIS']);
  });
});

describeEachDb('flow webhook: de-duplication', (dialect) => {
  it('the same body and symbol within 60 s is 200 rejected_dedupe and runs nothing; another symbol runs; after 60 s it runs again', async () => {
    h = await startFlow(dialect);
    const { id, token, secret } = await h.create(signalFlow());
    const body = { ...go({ qty: 1 }), secret };
    expect(answer(await h.hook(token, body, { symbol: 'SBIN' }))).toMatchObject({ result: 'ok' });
    // Key order, the secret's place (body or query) and the symbol's case do not make it new.
    const { secret: _s, ...bare } = body;
    const same: [unknown, { symbol: string; query?: string }][] = [
      [body, { symbol: 'SBIN' }],
      [Object.fromEntries(Object.entries(body).reverse()), { symbol: 'SBIN' }],
      [bare, { symbol: 'sbin', query: `secret=${encodeURIComponent(secret)}` }],
    ];
    for (const [b, o] of same) {
      await h.advance(10_000);
      const res = await h.hook(token, b, o);
      expect(res.statusCode).toBe(200);
      const a = answer(res);
      expect(a).toMatchObject({ status: 'error', result: 'rejected_dedupe', flow_id: id });
      expect(a.nodes).toBeUndefined();
    }
    expect(await placed(h)).toEqual(['BUY SBIN×1 MIS']);
    // Another symbol, or another body, within the window: a new delivery.
    expect(answer(await h.hook(token, body, { symbol: 'INFY' }))).toMatchObject({ result: 'ok' });
    expect(answer(await h.hook(token, { ...body, qty: 2 }, { symbol: 'SBIN' }))).toMatchObject({
      result: 'ok',
    });
    expect(await placed(h)).toEqual(['BUY SBIN×1 MIS', 'BUY INFY×1 MIS', 'BUY SBIN×2 MIS']);
    // 61 s after the first: it runs again.
    await h.advance(31_000);
    expect(answer(await h.hook(token, body, { symbol: 'SBIN' }))).toMatchObject({ result: 'ok' });
    expect(await placed(h)).toHaveLength(4);
    const runs = (await h.runs(id)).reverse();
    expect(runs.map((r) => [r.result, r.http_status, r.symbol])).toEqual([
      ['ok', 200, 'SBIN'],
      ['rejected_dedupe', 200, 'SBIN'],
      ['rejected_dedupe', 200, 'SBIN'],
      ['rejected_dedupe', 200, 'SBIN'],
      ['ok', 200, 'INFY'],
      ['ok', 200, 'SBIN'],
      ['ok', 200, 'SBIN'],
    ]);
    expect(runs.filter((r) => r.result === 'rejected_dedupe').every((r) => r.nodes === null)).toBe(true);
  });

  it('five identical deliveries at once: exactly one runs, four are rejected_dedupe, one order', async () => {
    h = await startFlow(dialect);
    const { id, token, secret } = await h.create(signalFlow());
    const all = await Promise.all(
      Array.from({ length: 5 }, () => h.hook(token, { ...go({ qty: 1 }), secret }, { symbol: 'SBIN' })),
    );
    expect(all.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(all.map((r) => answer(r).result).sort()).toEqual([
      'ok',
      'rejected_dedupe',
      'rejected_dedupe',
      'rejected_dedupe',
      'rejected_dedupe',
    ]);
    expect(await placed(h)).toEqual(['BUY SBIN×1 MIS']);
    expect(await h.runs(id)).toHaveLength(5);
  });

  it('a refused delivery claims nothing: after a wrong secret, the same body with the secret runs; de-duplication is per flow', async () => {
    h = await startFlow(dialect);
    const a = await h.create(signalFlow({ name: 'a' }));
    const b = await h.create(signalFlow({ name: 'b' }));
    const body = go({ qty: 1 });
    expect((await h.hook(a.token, { ...body, secret: 'wrong' }, { symbol: 'SBIN' })).statusCode).toBe(403);
    expect(answer(await h.hook(a.token, { ...body, secret: a.secret }, { symbol: 'SBIN' }))).toMatchObject({
      result: 'ok',
    });
    expect(answer(await h.hook(b.token, { ...body, secret: b.secret }, { symbol: 'SBIN' }))).toMatchObject({
      result: 'ok',
    });
    expect(await placed(h)).toEqual(['BUY SBIN×1 MIS', 'BUY SBIN×1 MIS']);
  });
});
