/**
 * `/admin/mcp` ("Agents", docs/rules/mcp.md#mcp-settings and #mcp-audit) driven in Chromium
 * against the real built console: a client that registered itself is approved and another
 * revoked, a setting is changed (an out-of-range rate shows the server's field message), the kill
 * switch is engaged and released by typing the word, and a tool call shows in the audit. Each step
 * saves a screenshot; the suite fails on any browser console error.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  HAVE_CHROMIUM,
  startConsoleBrowser,
  type ConsoleBrowser,
  journeyHooks,
} from '../helpers/console-browser.js';

const PASSWORD = 'agents journey horse';

describe.skipIf(!HAVE_CHROMIUM)('the Agents page in Chromium', () => {
  let c: ConsoleBrowser;
  const clients: Record<string, string> = {};

  const register = async (name: string) => {
    const res = await fetch(`${c.base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: name, redirect_uris: ['http://127.0.0.1:9/cb'] }),
    });
    return { status: res.status, body: (await res.json()) as { client_id?: string } };
  };

  beforeAll(async () => {
    c = await startConsoleBrowser();
    await c.app.auth.users.createFirst({ username: 'admin', password: PASSWORD, email: 'admin@example.com' });
    for (const name of ['Journey Assistant', 'Stray Agent']) {
      const r = await register(name);
      expect(r.status).toBe(201);
      clients[name] = r.body.client_id!;
    }
    await c.signIn('admin', PASSWORD);
  }, 120_000);

  journeyHooks(() => c, '30-agents');

  it('is linked from the navigation and /admin, and lists the clients with their counts', async () => {
    const { page, base } = c;
    await page.getByRole('link', { name: 'Administration' }).click();
    await page.waitForURL(`${base}/admin`);
    await page.getByRole('main').getByRole('link', { name: 'Agents' }).waitFor();
    await page.getByRole('navigation').getByRole('link', { name: 'Agents' }).click();
    await page.waitForURL(`${base}/admin/mcp`);
    await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
    const table = page.getByRole('table', { name: 'OAuth clients' });
    await table.getByText('Journey Assistant').waitFor();
    await table.getByText(clients['Journey Assistant']!).waitFor();
    await table.getByText('http://127.0.0.1:9/cb').first().waitFor();
    await page.getByLabel('Pending: 2').waitFor();
    await page.getByLabel('Clients: 2').waitFor();
    expect(await page.getByTestId(`client-status-${clients['Journey Assistant']}`).textContent()).toBe(
      'pending',
    );
    await page.getByText('No agent has called a tool yet.').waitFor();
    await c.shot('30a-agents-pending');
  });

  it('approves one client and revokes the other after a confirmation', async () => {
    const { page } = c;
    await c.button('Approve Journey Assistant').click();
    const approved = page.getByTestId(`client-status-${clients['Journey Assistant']}`);
    await approved.getByText('approved', { exact: true }).waitFor();
    await page.getByLabel('Approved: 1').waitFor();
    await c.button('Revoke Stray Agent').click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this client?' });
    await dialog.getByText('Its tokens stop working at once').waitFor();
    await page.waitForTimeout(400);
    await c.shot('30b-agents-revoke-confirm');
    await dialog.getByRole('button', { name: 'Revoke', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page
      .getByTestId(`client-status-${clients['Stray Agent']}`)
      .getByText('revoked', { exact: true })
      .waitFor();
    await page.getByLabel('Revoked: 1').waitFor();
    const rows = await c.t.db.database.db
      .selectFrom('oauth_clients')
      .select(['name', 'status'])
      .orderBy('name')
      .execute();
    expect(rows).toEqual([
      { name: 'Journey Assistant', status: 'approved' },
      { name: 'Stray Agent', status: 'revoked' },
    ]);
    await c.shot('30c-agents-approved-revoked');
  });

  it('shows the server’s message under an out-of-range rate, then saves the settings', async () => {
    const { page, base } = c;
    c.expected.add('/admin/api/mcp/settings');
    const form = page.getByRole('form', { name: 'Agent settings' });
    await c.field('Calls per minute per token').fill('7000');
    await c.button('Save settings').click();
    await form.getByText('Must be <= 6000.').waitFor();
    await form.scrollIntoViewIfNeeded();
    await c.shot('30d-agents-settings-field-message');
    await c.field('Calls per minute per token').fill('120');
    await page.getByRole('checkbox', { name: 'write:orders' }).uncheck();
    await page.getByRole('switch', { name: 'Agents may place orders' }).uncheck();
    await c.button('Save settings').click();
    await form.getByText('Settings saved').waitFor();
    const cookie = (await page.context().cookies()).map((k) => `${k.name}=${k.value}`).join('; ');
    const res = await fetch(`${base}/admin/api/mcp/settings`, { headers: { cookie } });
    expect(((await res.json()) as { data: unknown }).data).toMatchObject({
      token_rate_per_minute: 120,
      writes_enabled: false,
      allowed_scopes: ['read:market', 'read:account'],
      kill_switch: false,
    });
  });

  it('engages the kill switch after ENGAGE is typed, and releases it after RELEASE', async () => {
    const { page } = c;
    await page.getByRole('heading', { name: 'Agents', level: 1 }).scrollIntoViewIfNeeded();
    await c.button('Engage the kill switch').click();
    const dialog = page.getByRole('dialog', { name: 'Engage the kill switch?' });
    const confirm = dialog.getByRole('textbox', { name: 'Type ENGAGE to confirm' });
    await confirm.fill('engage');
    expect(await dialog.getByRole('button', { name: 'Engage', exact: true }).isDisabled()).toBe(true);
    await confirm.fill('ENGAGE');
    await page.waitForTimeout(400);
    await c.shot('30e-agents-engage-confirm');
    await dialog.getByRole('button', { name: 'Engage', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByTestId('kill-switch-state').getByText('Kill switch engaged').waitFor();
    await page
      .getByTestId('kill-switch-state')
      .getByText(/^\d+ tokens? revoked just now\.$/)
      .waitFor();
    // Registration is refused while it is engaged.
    expect((await register('Too Late')).status).toBe(403);
    await page.waitForTimeout(400);
    await c.shot('30f-agents-kill-switch-engaged');

    await c.button('Release the kill switch').click();
    const release = page.getByRole('dialog', { name: 'Release the kill switch?' });
    await release.getByRole('textbox', { name: 'Type RELEASE to confirm' }).fill('RELEASE');
    await release.getByRole('button', { name: 'Release', exact: true }).click();
    await release.waitFor({ state: 'hidden' });
    await page.getByTestId('kill-switch-state').getByText('Released', { exact: true }).waitFor();
    await page.getByText('Kill switch released: agents work again').waitFor();
    expect((await register('Welcome Back')).status).toBe(201);
  });

  it('shows a tool call in the audit, filters it and pages', async () => {
    const { page } = c;
    const { apikey } = await c.app.auth.apiKeys.regenerate(1);
    const res = await fetch(`${c.base}/mcp/local/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apikey, tool: 'get_funds' }),
    });
    expect(res.status).toBe(200);
    await c.button('Refresh').click();
    const audit = page.getByRole('table', { name: 'Agent tool calls' });
    const row = audit.getByRole('row').filter({ hasText: 'get_funds' });
    await row.waitFor();
    await row.getByText('stdio', { exact: true }).waitFor();
    await row.getByText('local', { exact: true }).waitFor();
    await row.getByText('admin (#1)').waitFor();
    await row.getByText('read:account').waitFor();
    await row.getByText('127.0.0.1').waitFor();
    // The call's outcome as audited (no broker is connected here), and one it is not.
    const audited = await c.t.db.database.db
      .selectFrom('mcp_audit')
      .select(['outcome', 'http_status'])
      .executeTakeFirstOrThrow();
    await row.getByText(audited.outcome, { exact: true }).waitFor();
    await row.getByText(String(audited.http_status), { exact: true }).waitFor();
    const other = audited.outcome === 'error' ? 'ok' : 'error';
    expect(await c.button('Older').isDisabled()).toBe(true);
    await audit.scrollIntoViewIfNeeded();
    await c.shot('30g-agents-audit');
    await page.getByRole('combobox', { name: 'Outcome' }).selectOption(other);
    await page.getByText('No call matches these filters.').waitFor();
    await page.getByRole('combobox', { name: 'Outcome' }).selectOption('');
    await c.field('Tool (optional)').fill('get_funds');
    await row.waitFor();
    await c.field('Tool (optional)').fill('get_quotes');
    await page.getByText('No call matches these filters.').waitFor();
    await c.field('Tool (optional)').fill('');
    await row.waitFor();
    // 60 later calls: the first one is then on the second page ("Older", by before_id).
    await c.t.db.database.db
      .insertInto('mcp_audit')
      .values(
        Array.from({ length: 60 }, (_, i) => ({
          ts: c.clock.now() + 1_000 + i,
          transport: 'stdio',
          client_id: null,
          user_id: 1,
          tool: 'get_holdings',
          scope: 'read:account',
          args_digest: 'a'.repeat(64),
          http_status: 200,
          outcome: 'ok',
          duration_ms: 5,
          ip: '127.0.0.1',
        })),
      )
      .execute();
    await c.button('Refresh').click();
    await audit.getByText('get_holdings').first().waitFor();
    expect(await audit.getByText('get_funds').count()).toBe(0);
    await c.button('Older').click();
    await page.getByText(/calls before #\d+\./).waitFor();
    await row.waitFor();
    await c.button('Newest').click();
    await page.getByText(/calls before #/).waitFor({ state: 'hidden' });
    expect(await audit.getByText('get_funds').count()).toBe(0);
  });

  it('fits a phone screen, and refuses the page to another user', async () => {
    const { page, base } = c;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/admin/mcp`);
    await page.getByRole('table', { name: 'OAuth clients' }).getByText('Welcome Back').waitFor();
    await c.shot('30h-agents-phone');
    await page.getByRole('form', { name: 'Agent settings' }).scrollIntoViewIfNeeded();
    await c.shot('30i-agents-phone-settings');
    await page.setViewportSize({ width: 1280, height: 800 });
    await c.app.auth.users.create({ username: 'trader', password: PASSWORD });
    await c.button('Sign out').click();
    await page.waitForURL(`${base}/login`);
    await c.signIn('trader', PASSWORD);
    expect(await page.getByRole('link', { name: 'Agents' }).count()).toBe(0);
    await page.goto(`${base}/admin/mcp`);
    await page.getByRole('alert').getByText('Not allowed').waitFor();
    await c.shot('30j-agents-not-allowed');
  });
});
