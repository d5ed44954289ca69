/**
 * The local agents' MCP server (docs/rules/mcp.md#mcp-local) driven by the MCP SDK's own client
 * over stdio: `algodesk mcp --apikey-stdin` (the key on the first line, then the MCP messages) and
 * with ALGODESK_API_KEY, against a running algodesk in analyzer mode. Tools are the `/api/v1` calls
 * they stand for (an order placed through a tool is in the order book); a bad key is refused by
 * the API; every call is audited with a digest of its arguments and never the key.
 */
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox, type SandboxHarness } from '../helpers/sandbox.js';
import { asBrowser, describeEachDb } from '../helpers/test-app.js';
import { MCP_TOOLS } from '../../src/modules/mcp/mcp-tools.js';
import { UNTRUSTED_NOTE } from '../../src/modules/mcp/mcp-server.js';

const REPO = resolve(import.meta.dirname, '../..');
type Json = Record<string, unknown>;

/** An MCP client on `algodesk mcp`, the key passed as `how` says. */
async function connect(url: string, apikey: string, how: 'stdin' | 'env'): Promise<Client> {
  const cli = `node --import tsx src/cli.ts mcp --url ${url}`;
  const transport = new StdioClientTransport(
    how === 'stdin'
      ? {
          command: 'bash',
          args: ['-c', `{ printf '%s\\n' "$KEY_FOR_TEST"; cat; } | exec ${cli} --apikey-stdin`],
          env: { ...(process.env as Record<string, string>), KEY_FOR_TEST: apikey },
          cwd: REPO,
          stderr: 'pipe',
        }
      : {
          command: 'bash',
          args: ['-c', `exec ${cli}`],
          env: { ...(process.env as Record<string, string>), ALGODESK_API_KEY: apikey },
          cwd: REPO,
          stderr: 'pipe',
        },
  );
  const client = new Client({ name: 'algodesk-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

describeEachDb('algodesk mcp (stdio) against a running algodesk', (dialect) => {
  let h: SandboxHarness;
  let url: string;
  let client: Client;
  beforeAll(async () => {
    h = await startSandbox(dialect);
    await h.tick({ 'NSE:SBIN': h.quote(800) });
    url = await h.t.app.listen({ host: '127.0.0.1', port: 0 });
    client = await connect(url, h.apikey, 'stdin');
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await h?.close();
  });

  it('lists every tool with its scope and read/write hints', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(MCP_TOOLS.map((t) => t.name).sort());
    const place = tools.find((t) => t.name === 'place_order')!;
    expect(place.description).toContain('write:orders');
    expect(place.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(tools.find((t) => t.name === 'get_funds')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(Object.keys((place.inputSchema as { properties: Json }).properties)).toEqual(
      expect.arrayContaining(['symbol', 'exchange', 'action', 'quantity']),
    );
  });

  it('a read tool answers the API’s data, structured and as text marked untrusted', async () => {
    const r = (await client.callTool({ name: 'get_funds', arguments: {} })) as CallToolResult;
    expect(r.isError).toBe(false);
    expect(r.structuredContent).toMatchObject({
      status: 'success',
      mode: 'analyze',
      data: expect.any(Object),
    });
    const text = (r.content[0] as { text: string }).text;
    expect(text.startsWith(UNTRUSTED_NOTE)).toBe(true);
    expect(r._meta).toMatchObject({ 'algodesk/untrusted': true, 'algodesk/http_status': 200 });
  });

  it('a write tool places the order the API would: it is in the order book', async () => {
    const r = (await client.callTool({
      name: 'place_order',
      arguments: {
        strategy: 'agent',
        symbol: 'SBIN',
        exchange: 'NSE',
        action: 'BUY',
        quantity: 2,
        product: 'CNC',
      },
    })) as CallToolResult;
    expect(r.isError, JSON.stringify(r.content)).toBe(false);
    const orderid = (r.structuredContent as { orderid: string }).orderid;
    expect(orderid).toMatch(/^\d+$/);
    const book = (await client.callTool({ name: 'get_order_book', arguments: {} })) as CallToolResult;
    const orders = (book.structuredContent as { data: { orders: Json[] } }).data.orders;
    expect(orders.find((o) => o.orderid === orderid)).toMatchObject({
      symbol: 'SBIN',
      action: 'BUY',
      quantity: 2,
      strategy: 'agent',
    });
  });

  it('close_position closes one position at market (a smart order to size 0); a flat one is left alone', async () => {
    const place = (action: string, quantity: number) =>
      client.callTool({
        name: 'place_order',
        arguments: { strategy: 'agent', symbol: 'INFY', exchange: 'NSE', action, quantity, product: 'MIS' },
      });
    await place('BUY', 7);
    const close = () =>
      client.callTool({
        name: 'close_position',
        arguments: { strategy: 'agent', symbol: 'INFY', exchange: 'NSE', product: 'MIS' },
      }) as Promise<CallToolResult>;
    const closed = await close();
    expect(closed.isError, JSON.stringify(closed.content)).toBe(false);
    const positions = (await client.callTool({ name: 'get_position_book', arguments: {} })) as CallToolResult;
    const infy = (positions.structuredContent as { data: Json[] }).data.find((p) => p.symbol === 'INFY');
    expect(Number(infy?.quantity ?? 0)).toBe(0);
    const again = await close();
    expect(JSON.stringify(again.structuredContent)).toContain('No OpenPosition Found');
  });

  it('the API’s refusals come back as tool errors with its message (a field fault, an unknown symbol)', async () => {
    const bad = (await client.callTool({
      name: 'place_order',
      arguments: { strategy: 'agent', symbol: 'SBIN', exchange: 'NSE', action: 'HOLD', quantity: 1 },
    })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect((bad.content[0] as { text: string }).text).toMatch(/^HTTP 400: .*action/s);
    const unknown = (await client.callTool({
      name: 'get_quote',
      arguments: { symbol: 'NOSUCH', exchange: 'NSE' },
    })) as CallToolResult;
    expect(unknown.isError).toBe(true);
  });

  it('a wrong key is refused by the API (403), nothing placed; the key from the environment works the same', async () => {
    const before = (await h.ok<{ data: { orders: unknown[] } }>('orderbook')).data.orders.length;
    const wrong = await connect(url, 'f'.repeat(64), 'env');
    try {
      const r = (await wrong.callTool({
        name: 'place_order',
        arguments: {
          strategy: 'agent',
          symbol: 'SBIN',
          exchange: 'NSE',
          action: 'BUY',
          quantity: 1,
          product: 'CNC',
        },
      })) as CallToolResult;
      expect(r.isError).toBe(true);
      expect((r.content[0] as { text: string }).text).toMatch(/^HTTP 403/);
    } finally {
      await wrong.close();
    }
    expect((await h.ok<{ data: { orders: unknown[] } }>('orderbook')).data.orders).toHaveLength(before);
    const byEnv = await connect(url, h.apikey, 'env');
    try {
      const r = (await byEnv.callTool({ name: 'get_analyzer_status', arguments: {} })) as CallToolResult;
      expect(r.structuredContent).toMatchObject({ status: 'success', data: { mode: 'analyze' } });
    } finally {
      await byEnv.close();
    }
  });

  it('every call is in the administrator’s audit: tool, scope, user, outcome, a digest of the arguments, never the key', async () => {
    const res = await h.t.app.inject({
      method: 'GET',
      url: '/admin/api/mcp/audit?limit=50',
      headers: asBrowser(h.admin),
    });
    expect(res.statusCode, res.body).toBe(200);
    const rows = res.json().data as Json[];
    const placed = rows.find((r) => r.tool === 'place_order' && r.outcome === 'ok');
    expect(placed).toMatchObject({
      transport: 'stdio',
      scope: 'write:orders',
      user_id: h.userId,
      http_status: 200,
      args_digest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(rows.some((r) => r.tool === 'place_order' && r.http_status === 400 && r.outcome === 'error')).toBe(
      true,
    );
    expect(rows.some((r) => r.tool === 'get_funds' && r.scope === 'read:account')).toBe(true);
    const all = JSON.stringify(await h.t.db.database.db.selectFrom('mcp_audit').selectAll().execute());
    expect(all).not.toContain(h.apikey);
    expect(res.body).not.toContain(h.apikey);
    const nonAdmin = await h.t.app.inject({ method: 'GET', url: '/admin/api/mcp/audit' });
    expect(nonAdmin.statusCode).toBe(401);
  });
});
