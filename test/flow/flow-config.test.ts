/**
 * Flow workflows, the definition routes (docs/rules/flow.md#flow-management): create, read, list,
 * update, delete, rotate and runs; every definition checked as a whole on save with messages
 * naming the node (its id and place) and the field, nothing saved (#flow-definition,
 * #flow-templates: `{{constructor}}` or a 1 MB value refused); unique names; another user's flow
 * the same 404 as a missing one; CSRF on every change; rotation and deletion kill the token.
 */
import { afterEach, expect, it } from 'vitest';
import { createUser, describeEachDb, login } from '../helpers/test-app.js';
import {
  FLOW_TOKEN,
  HOST_SERVER,
  answer,
  flowOf,
  placed,
  signalFlow,
  startFlow,
  type FlowHarness,
  type FlowView,
} from '../helpers/flow.js';

let h: FlowHarness;
afterEach(async () => {
  await h?.close();
});

type Row = Record<string, unknown>;
const json = (res: { json(): unknown }) => res.json() as { status: string; data: FlowView; message: string };
const go = { signal: 'go', action: 'BUY', qty: 1 };
const entry = (over: Row = {}): Row => ({
  id: 'entry',
  type: 'place_order',
  action: 'BUY',
  quantity: 1,
  ...over,
});
const gate = (over: Row = {}): Row => ({
  id: 'gate',
  type: 'condition',
  when: { kind: 'time_window', start: '09:15', end: '15:00' },
  ...over,
});

describeEachDb('flow definitions: the session routes', (dialect) => {
  it('create shows the token and secret once; read and list never do; update, rename, disable; delete; names unique per user', async () => {
    h = await startFlow(dialect);
    const a = await h.create(signalFlow());
    expect(a.token).toMatch(FLOW_TOKEN);
    expect(a.url).toBe(`${HOST_SERVER}/flow/webhook/${a.token}`);
    expect(a.view).toMatchObject({
      name: 'signal',
      enabled: true,
      definition: signalFlow().definition,
      created_at: h.t.clock.now(),
      updated_at: h.t.clock.now(),
    });
    const b = await h.create(flowOf('  spaced  ', [entry()]));
    expect(b.view.name).toBe('spaced');
    expect(b.token).not.toBe(a.token);
    expect(b.secret).not.toBe(a.secret);
    const one = await h.manage('GET', `/${a.id}`);
    expect(one.statusCode).toBe(200);
    expect(json(one).data).toEqual(a.view);
    const list = await h.manage('GET', '');
    expect((list.json() as { data: FlowView[] }).data).toEqual([a.view, b.view]);
    for (const body of [one.body, list.body])
      for (const s of [a.token, a.secret, b.token, b.secret]) expect(body).not.toContain(s);

    // Update: the definition is checked again; name, enabled and updated_at change.
    await h.advance(5_000);
    const upd = await h.manage('PUT', `/${a.id}`, {
      name: 'renamed',
      enabled: false,
      definition: flowOf('', [gate(), entry()]).definition,
    });
    expect(upd.statusCode).toBe(200);
    expect(json(upd).data).toMatchObject({
      id: a.id,
      name: 'renamed',
      enabled: false,
      created_at: a.view.created_at,
      updated_at: h.t.clock.now(),
      definition: { nodes: [gate(), entry()] },
    });
    expect(json(await h.manage('GET', `/${a.id}`)).data).toEqual(json(upd).data);
    // A PUT of one field keeps the others; the token is unchanged by an update.
    expect(json(await h.manage('PUT', `/${a.id}`, { enabled: true })).data).toMatchObject({
      name: 'renamed',
      enabled: true,
      definition: { nodes: [gate(), entry()] },
    });
    const ran = answer(await h.hook(a.token, { secret: a.secret }, { symbol: 'SBIN' }));
    expect(ran).toMatchObject({ result: 'ok', flow_id: a.id });

    // Names: 409 on create and rename within the user, blank refused.
    const dup = await h.manage('POST', '', flowOf('spaced', [entry()]));
    expect(dup.statusCode).toBe(409);
    expect(json(dup).status).toBe('error');
    expect((await h.manage('PUT', `/${a.id}`, { name: ' spaced ' })).statusCode).toBe(409);
    expect((await h.manage('POST', '', flowOf('   ', [entry()]))).statusCode).toBe(400);
    expect((await h.manage('POST', '', flowOf('', [entry()]))).statusCode).toBe(400);
    expect((await h.manage('POST', '', { definition: { nodes: [entry()] } })).statusCode).toBe(400);
    expect((await h.manage('POST', '', { ...flowOf('x', [entry()]), extra: 1 })).statusCode).toBe(400);
    // Renaming to its own name is no conflict.
    expect((await h.manage('PUT', `/${a.id}`, { name: 'renamed' })).statusCode).toBe(200);

    // Delete: gone (404 everywhere), its name free again, its token dead.
    const del = await h.manage('DELETE', `/${b.id}`);
    expect(del.statusCode).toBe(200);
    expect(del.json()).toMatchObject({ status: 'success' });
    for (const [method, suffix] of [
      ['GET', ''],
      ['PUT', ''],
      ['DELETE', ''],
      ['POST', '/rotate'],
      ['GET', '/runs'],
    ] as const)
      expect(
        (await h.manage(method, `/${b.id}${suffix}`, method === 'PUT' ? { enabled: true } : undefined))
          .statusCode,
        `${method} ${suffix}`,
      ).toBe(404);
    expect((await h.manage('POST', '', flowOf('spaced', [entry()]))).statusCode).toBe(200);
    const dead = await h.hook(b.token, { secret: b.secret }, { symbol: 'SBIN' });
    expect(dead.statusCode).toBe(404);
    expect(answer(dead)).toMatchObject({ status: 'error', result: 'rejected_token' });
    expect(answer(dead).flow_id).toBeUndefined();
  });

  it('runs: newest first, exactly the documented fields, the limit honoured (1-500)', async () => {
    h = await startFlow(dialect);
    const { id, token, secret } = await h.create(signalFlow());
    await h.hook(token, { ...go, secret }, { symbol: 'SBIN' });
    await h.advance(1_000);
    await h.hook(token, { ...go, secret }, { symbol: 'SBIN' });
    await h.advance(1_000);
    await h.hook(token, '{"x":', { symbol: 'SBIN', query: `secret=${encodeURIComponent(secret)}` });
    const all = await h.runs(id);
    expect(all.map((r) => r.result)).toEqual(['rejected_payload', 'rejected_dedupe', 'ok']);
    for (const r of all)
      expect(Object.keys(r).sort()).toEqual(
        [
          'duration_ms',
          'http_status',
          'id',
          'ip',
          'message',
          'nodes',
          'payload',
          'result',
          'symbol',
          'ts',
        ].sort(),
      );
    expect(all[0]!.id).toBeGreaterThan(all[1]!.id);
    expect(all[1]!.id).toBeGreaterThan(all[2]!.id);
    expect(all[0]!.ts).toBe(h.t.clock.now());
    expect((await h.runs(id, 1)).map((r) => r.id)).toEqual([all[0]!.id]);
    expect((await h.runs(id, 2)).map((r) => r.id)).toEqual([all[0]!.id, all[1]!.id]);
    expect(await h.runs(id, 500)).toHaveLength(3);
    for (const limit of ['0', '501', 'abc', '-1', '1.5']) {
      const res = await h.manage('GET', `/${id}/runs?limit=${limit}`);
      expect(res.statusCode, limit).toBe(400);
    }
  });
});

describeEachDb('flow definitions: checked on save', (dialect) => {
  it('each fault is a 400 naming the node (id and place) and the field; nothing saved; an update keeps the old definition', async () => {
    h = await startFlow(dialect);
    const kept = await h.create(flowOf('kept', [gate(), entry()]));
    // [label, nodes (or whole definition), what the message must hold]
    const cases: [string, unknown[] | Row, RegExp[]][] = [
      [
        '{{constructor}}',
        [gate(), entry({ quantity: '{{constructor}}' })],
        [/node entry \(2\)/, /quantity/, /constructor/],
      ],
      [
        '{{webhook.__proto__.x}}',
        [entry({ action: '{{webhook.__proto__.x}}' })],
        [/node entry \(1\)/, /action/, /__proto__/],
      ],
      [
        '{{ webhook.constructor.name }}',
        [entry({ symbol: '{{ webhook.constructor.name }}' })],
        [/node entry \(1\)/, /symbol/],
      ],
      [
        '{{webhook.prototype}}',
        [{ id: 'say', type: 'notify', message: 'hi {{webhook.prototype}}' }],
        [/node say \(1\)/, /message/],
      ],
      [
        '{{quote.foo}}',
        [entry({ pricetype: 'LIMIT', price: '{{quote.foo}}' })],
        [/node entry \(1\)/, /price/, /quote\.foo/],
      ],
      [
        '{{process.env.APP_KEY}}',
        [entry({ quantity: '{{process.env.APP_KEY}}' })],
        [/node entry \(1\)/, /quantity/],
      ],
      ['{{webhook}}', [entry({ quantity: '{{webhook}}' })], [/node entry \(1\)/, /quantity/]],
      ['{{symbol.length}}', [entry({ quantity: '{{symbol.length}}' })], [/node entry \(1\)/, /quantity/]],
      ["{{webhook['x']}}", [entry({ quantity: "{{webhook['x']}}" })], [/node entry \(1\)/, /quantity/]],
      ['five levels', [entry({ quantity: '{{webhook.a.b.c.d.e}}' })], [/node entry \(1\)/, /quantity/]],
      [
        '{{this}} in a compare',
        [gate({ when: { kind: 'compare', left: '{{this}}', op: 'eq', right: 'x' } }), entry()],
        [/node gate \(1\)/, /when\.left/],
      ],
      [
        'a 1,001-character value',
        [entry({ symbol: 'S'.repeat(1_001) })],
        [/node entry \(1\)/, /symbol/, /1000/],
      ],
      ['duplicate ids', [entry(), gate({ id: 'entry' })], [/node entry \(2\)/, /id/]],
      [
        'else backwards',
        [entry(), gate({ else: 'entry' }), entry({ id: 'tail' })],
        [/node gate \(2\)/, /else/],
      ],
      ['else to itself', [gate({ else: 'gate' }), entry()], [/node gate \(1\)/, /else/]],
      ['else to nothing', [gate({ else: 'nowhere' }), entry()], [/node gate \(1\)/, /else/, /nowhere/]],
      [
        'unknown node type',
        [entry(), { id: 'exec', type: 'shell', command: 'rm -rf /' }],
        [/node exec \(2\)/, /type/],
      ],
      [
        'wait 6 s',
        [{ id: 'pause', type: 'wait', seconds: 6 }, entry()],
        [/node pause \(1\)/, /seconds/, /5/],
      ],
      ['wait 0 s', [{ id: 'pause', type: 'wait', seconds: 0 }, entry()], [/node pause \(1\)/, /seconds/]],
      [
        'window end before start',
        [gate({ when: { kind: 'time_window', start: '15:00', end: '09:15' } })],
        [/node gate \(1\)/, /when\.end/],
      ],
      [
        'window 25:00',
        [gate({ when: { kind: 'time_window', start: '09:00', end: '25:00' } })],
        [/node gate \(1\)/, /when\.end/],
      ],
      [
        'unknown condition kind',
        [gate({ when: { kind: 'eval', code: '1' } })],
        [/node gate \(1\)/, /when\.kind/],
      ],
      [
        'compare op',
        [gate({ when: { kind: 'compare', left: 'a', op: 'like', right: 'b' } })],
        [/node gate \(1\)/, /when\.op/],
      ],
      [
        'position state',
        [gate({ when: { kind: 'position', state: 'sideways' } })],
        [/node gate \(1\)/, /when\.state/],
      ],
      ['extra field', [entry({ script: 'alert(1)' })], [/node entry \(1\)/, /script/]],
      [
        'missing field',
        [{ id: 'entry', type: 'place_order', action: 'BUY' }],
        [/node entry \(1\)/, /quantity/],
      ],
      ['quantity 0', [entry({ quantity: 0 })], [/node entry \(1\)/, /quantity/]],
      ['bad product', [entry({ product: 'INTRADAY' })], [/node entry \(1\)/, /product/]],
      ['bad id', [entry({ id: 'no spaces here' })], [/node 1|\(1\)/, /id/]],
      ['no nodes', { nodes: [] }, [/nodes/]],
      ['51 nodes', { nodes: Array.from({ length: 51 }, (_, i) => entry({ id: `n${i}` })) }, [/nodes/]],
      ['unknown exchange', { exchange: 'NYSE', nodes: [entry()] }, [/exchange/]],
      ['not an object', [5], [/node 1/]],
    ];
    for (const [label, nodes, must] of cases) {
      const definition = Array.isArray(nodes) ? { nodes } : nodes;
      const res = await h.manage('POST', '', { name: `bad ${label}`, definition });
      expect(res.statusCode, label).toBe(400);
      const body = res.json() as { status: string; message: string };
      expect(body.status, label).toBe('error');
      for (const m of must) expect(body.message, label).toMatch(m);
      // The same definition on an update: refused, the saved one unchanged.
      const put = await h.manage('PUT', `/${kept.id}`, { definition });
      expect(put.statusCode, `PUT ${label}`).toBe(400);
    }
    const list = (await h.manage('GET', '')).json() as { data: FlowView[] };
    expect(list.data).toEqual([kept.view]);
    expect(await h.rows('flows')).toHaveLength(1);
  });

  it('every fault is listed, not only the first', async () => {
    h = await startFlow(dialect);
    const res = await h.manage(
      'POST',
      '',
      flowOf('many', [
        entry({ quantity: '{{constructor}}' }),
        { id: 'pause', type: 'wait', seconds: 9 },
        gate({ id: 'entry' }),
      ]),
    );
    expect(res.statusCode).toBe(400);
    const { message } = res.json() as { message: string };
    // The schema's fault (the wait) at least; the id and template faults once the shape is right.
    expect(message).toMatch(/node pause \(2\).*seconds/);
    const shaped = await h.manage(
      'POST',
      '',
      flowOf('many', [entry({ quantity: '{{constructor}}' }), gate({ id: 'entry', else: 'entry' })]),
    );
    expect(shaped.statusCode).toBe(400);
    const m2 = (shaped.json() as { message: string }).message;
    expect(m2).toMatch(/node entry \(1\): quantity/);
    expect(m2).toMatch(/node entry \(2\): id is used twice/);
  });

  it('a 1 MB value is refused (the 64 KiB body limit or the field’s 1,000 characters) and nothing is saved; a definition just under 64 KiB of valid nodes is saved', async () => {
    h = await startFlow(dialect);
    const huge = flowOf('huge', [entry({ symbol: 'x'.repeat(1024 * 1024) })]);
    const res = await h.manage('POST', '', huge);
    expect([400, 413]).toContain(res.statusCode);
    expect((res.json() as { status: string }).status).toBe('error');
    const kept = await h.create(flowOf('kept', [entry()]));
    const put = await h.manage('PUT', `/${kept.id}`, { definition: huge.definition });
    expect([400, 413]).toContain(put.statusCode);
    expect((await h.manage('GET', '')).json()).toMatchObject({ data: [kept.view] });
    expect(await h.rows('flows')).toHaveLength(1);
    // 50 notify nodes of 1,000 characters: about 51 KB, within both limits.
    const big = flowOf(
      'big',
      Array.from({ length: 50 }, (_, i) => ({ id: `n${i}`, type: 'notify', message: 'm'.repeat(1_000) })),
    );
    expect(JSON.stringify(big).length).toBeLessThan(64 * 1024);
    expect((await h.manage('POST', '', big)).statusCode).toBe(200);
  });
});

describeEachDb('flow definitions: owners, CSRF, rotation', (dialect) => {
  it('another user’s flow is a 404 identical to a missing one on every route; its webhook keeps working', async () => {
    h = await startFlow(dialect);
    const { id, token, secret } = await h.create(signalFlow());
    await createUser(h.t, 'bob', 'bob password 123');
    const bob = await login(h.t, 'bob', 'bob password 123');
    const routes: ['GET' | 'POST' | 'PUT' | 'DELETE', string, object?][] = [
      ['GET', ''],
      ['PUT', '', { name: 'mine now' }],
      ['DELETE', ''],
      ['POST', '/rotate'],
      ['GET', '/runs'],
    ];
    for (const [method, suffix, payload] of routes) {
      const foreign = await h.manage(method, `/${id}${suffix}`, payload, bob);
      const missing = await h.manage(method, `/999999${suffix}`, payload, bob);
      expect(foreign.statusCode, `${method} ${suffix}`).toBe(404);
      expect(foreign.body, `${method} ${suffix}`).toBe(missing.body);
    }
    expect((await h.manage('GET', '', undefined, bob)).json()).toMatchObject({ data: [] });
    // Bob may use the same name.
    expect((await h.manage('POST', '', signalFlow(), bob)).statusCode).toBe(200);
    expect(json(await h.manage('GET', `/${id}`)).data).toMatchObject({ name: 'signal' });
    expect(answer(await h.hook(token, { ...go, secret }, { symbol: 'SBIN' }))).toMatchObject({
      result: 'ok',
      flow_id: id,
    });
    expect(await placed(h)).toEqual(['BUY SBIN×1 MIS']);
  });

  it('every change needs the CSRF token; no session is refused', async () => {
    h = await startFlow(dialect);
    const { id, token, secret, view } = await h.create(signalFlow());
    const writes: ['POST' | 'PUT' | 'DELETE', string, object?][] = [
      ['POST', '', flowOf('other', [entry()])],
      ['PUT', `/${id}`, { name: 'x' }],
      ['DELETE', `/${id}`],
      ['POST', `/${id}/rotate`],
    ];
    const wrong = { ...h.admin, csrf: 'not-the-token' };
    for (const [method, path, payload] of writes) {
      expect((await h.manage(method, path, payload, wrong)).statusCode, `${method} ${path}`).toBe(403);
      const none = await h.t.app.inject({
        method,
        url: `/flow/api/flows${path}`,
        headers: { cookie: h.admin.cookie },
        ...(payload ? { payload } : {}),
      });
      expect(none.statusCode, `${method} ${path} without a token`).toBe(403);
    }
    for (const url of ['/flow/api/flows', `/flow/api/flows/${id}`, `/flow/api/flows/${id}/runs`]) {
      const anonymous = await h.t.app.inject({ method: 'GET', url });
      expect(anonymous.statusCode, url).toBe(401);
    }
    const anonymousCreate = await h.t.app.inject({
      method: 'POST',
      url: '/flow/api/flows',
      payload: signalFlow(),
    });
    expect([401, 403]).toContain(anonymousCreate.statusCode);
    expect((await h.manage('GET', '')).json()).toMatchObject({ data: [view] });
    // Not rotated: the token and secret still work.
    expect(answer(await h.hook(token, { ...go, secret }, { symbol: 'SBIN' }))).toMatchObject({
      result: 'ok',
    });
  });

  it('rotation shows a new token and secret once; the old token is 404 rejected_token, the old secret 403 with the new token', async () => {
    h = await startFlow(dialect);
    const { id, token, secret } = await h.create(signalFlow());
    const rotated = await h.manage('POST', `/${id}/rotate`);
    expect(rotated.statusCode).toBe(200);
    expect(rotated.headers['cache-control']).toBe('no-store');
    const fresh = rotated.json() as {
      status: string;
      webhook_token: string;
      webhook_url: string;
      secret: string;
    };
    expect(fresh.status).toBe('success');
    expect(fresh.webhook_token).toMatch(FLOW_TOKEN);
    expect(fresh.webhook_token).not.toBe(token);
    expect(fresh.secret).not.toBe(secret);
    expect(fresh.webhook_url).toBe(`${HOST_SERVER}/flow/webhook/${fresh.webhook_token}`);
    const old = await h.hook(token, { ...go, secret }, { symbol: 'SBIN' });
    expect(old.statusCode).toBe(404);
    expect(answer(old)).toMatchObject({ status: 'error', result: 'rejected_token' });
    const oldSecret = await h.hook(fresh.webhook_token, { ...go, secret }, { symbol: 'SBIN' });
    expect(oldSecret.statusCode).toBe(403);
    expect(answer(oldSecret)).toMatchObject({ result: 'rejected_secret', flow_id: id });
    const ok = await h.hook(fresh.webhook_token, { ...go, secret: fresh.secret }, { symbol: 'SBIN' });
    expect(answer(ok)).toMatchObject({ result: 'ok', flow_id: id });
    expect(await placed(h)).toEqual(['BUY SBIN×1 MIS']);
    // The flow itself is unchanged by rotation, and its runs are its own.
    expect((await h.runs(id)).map((r) => r.result)).toEqual(['ok', 'rejected_secret']);
  });
});
