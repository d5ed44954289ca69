/**
 * Scanner configuration (docs/rules/scanner.md#scanner-configuration): a user's own scanners, the
 * cross-field rules the schema cannot state, the webhook id shown once
 * (docs/rules/scanner.md#scanner-webhook-id), the live switch and the delivery audit.
 */
import type { Clock } from '../../platform/clock.js';
import { CREDENTIAL_PREFIX, issueCredential, webhookUrl } from '../webhooks/credential.js';
import { readDetail } from '../webhooks/receiver.js';
import type { WebhooksRepository } from '../webhooks/webhooks.repository.js';
import { fromDbBool, isUniqueViolation, toDbBool } from '../../platform/db/database.js';
import { badRequest, conflict, notFound } from '../../platform/errors.js';
import type { ScannerRepository, ScannerRow } from './scanner.repository.js';
import type {
  CreateScannerBody,
  ScannerAction,
  ScannerMode,
  ScannerView,
  SymbolResult,
  UpdateScannerBody,
} from './scanner.schema.js';

/** The window a scanner may trade in, and the MIS square-off time's default. */
const EARLIEST = '09:00';
const LATEST = '15:30';
const DEFAULTS = { window_start: '09:15', window_end: '15:15', squareoff_time: '15:15', max_symbols: 10 };

export function toView(r: ScannerRow): ScannerView {
  return {
    id: Number(r.id),
    name: r.name,
    action: r.action as ScannerAction,
    exchange: r.exchange,
    product: r.product,
    quantity: r.quantity,
    capital: r.capital === null ? null : Number(r.capital),
    overrides: JSON.parse(r.overrides) as Record<string, number>,
    window_start: r.window_start,
    window_end: r.window_end,
    squareoff_time: r.squareoff_time,
    max_symbols: r.max_symbols,
    mode: r.mode as ScannerMode,
    enabled: fromDbBool(r.enabled),
    live_enabled: fromDbBool(r.live_enabled),
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}

/** The configuration a scanner would have after `body`: checked as a whole. */
function settled(base: Omit<ScannerView, 'id' | 'live_enabled' | 'created_at' | 'updated_at'>) {
  const fields: Record<string, string[]> = {};
  const fault = (f: string, m: string) => (fields[f] ??= []).push(m);
  if ((base.quantity === null) === (base.capital === null))
    fault('quantity', 'give exactly one of quantity (shares per symbol) and capital (rupees per symbol)');
  const { window_start: start, window_end: end } = base;
  if (start < EARLIEST || start > LATEST) fault('window_start', `must be within ${EARLIEST}-${LATEST}`);
  if (end < EARLIEST || end > LATEST) fault('window_end', `must be within ${EARLIEST}-${LATEST}`);
  if (start >= end) fault('window_end', 'must be after window_start');
  let squareoff = base.squareoff_time;
  if (base.product === 'MIS') {
    squareoff ??= DEFAULTS.squareoff_time;
    if (squareoff <= start || squareoff > LATEST)
      fault('squareoff_time', `must be after window_start and at most ${LATEST}`);
  } else squareoff = null;
  const faults = Object.keys(fields);
  if (faults.length > 0)
    throw badRequest(`Invalid scanner: ${faults.map((f) => `${f} ${fields[f]![0]}`).join('; ')}`, fields);
  return { ...base, squareoff_time: squareoff };
}

/** Symbols upper-cased (the schema checked their shape). */
const upperKeys = (o: Record<string, number>) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k.toUpperCase(), v]));

export interface Issued {
  webhook_id: string;
  webhook_url: string;
}

export class ScannerService {
  constructor(
    private readonly repo: ScannerRepository,
    private readonly clock: Clock,
    /** Public base URL of webhook URLs (the tunnel's while it is up, else HOST_SERVER). */
    private readonly publicBase: () => string,
    /** The deliveries' audit (the webhooks module's repository). */
    private readonly webhooks: WebhooksRepository,
  ) {}

  private url(id: string): string {
    return webhookUrl(this.publicBase(), '/scanner/webhook', id);
  }

  private async owned(userId: number, id: number): Promise<ScannerRow> {
    const r = await this.repo.own(userId, id);
    if (!r) throw notFound('No such scanner');
    return r;
  }

  private async nameFree(userId: number, name: string, exceptId?: number): Promise<void> {
    if (await this.repo.nameTaken(userId, name, exceptId))
      throw conflict(`You already have a scanner named "${name}"`);
  }

  async list(userId: number): Promise<ScannerView[]> {
    return (await this.repo.listForUser(userId)).map(toView);
  }

  async get(userId: number, id: number): Promise<ScannerView> {
    return toView(await this.owned(userId, id));
  }

  async create(userId: number, b: CreateScannerBody): Promise<{ data: ScannerView } & Issued> {
    const c = settled({
      name: b.name.trim(),
      action: b.action,
      exchange: b.exchange,
      product: b.product,
      quantity: b.quantity ?? null,
      capital: b.capital ?? null,
      overrides: upperKeys(b.overrides ?? {}),
      window_start: b.window_start ?? DEFAULTS.window_start,
      window_end: b.window_end ?? DEFAULTS.window_end,
      squareoff_time: b.squareoff_time ?? null,
      max_symbols: b.max_symbols ?? DEFAULTS.max_symbols,
      mode: b.mode ?? 'analyze',
      enabled: b.enabled ?? true,
    });
    if (c.name === '')
      throw badRequest('Invalid scanner: name must not be blank', { name: ['must not be blank'] });
    await this.nameFree(userId, c.name);
    const { value: id, digest } = issueCredential(CREDENTIAL_PREFIX.scanner);
    const now = this.clock.now();
    const row = await this.repo
      .insert({
        user_id: userId,
        ...c,
        overrides: JSON.stringify(c.overrides),
        enabled: toDbBool(c.enabled),
        live_enabled: toDbBool(false),
        webhook_digest: digest,
        squared_off_day: null,
        deleted_at: null,
        created_at: now,
        updated_at: now,
      })
      .catch((err: unknown) => {
        // Another request took the name between the check and the insert.
        if (isUniqueViolation(err)) throw conflict(`You already have a scanner named "${c.name}"`);
        throw err;
      });
    return { data: toView(row), webhook_id: id, webhook_url: this.url(id) };
  }

  async update(userId: number, id: number, b: UpdateScannerBody): Promise<ScannerView> {
    const current = toView(await this.owned(userId, id));
    const c = settled({
      ...current,
      ...Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined)),
      ...(b.name !== undefined ? { name: b.name.trim() } : {}),
      ...(b.overrides !== undefined ? { overrides: upperKeys(b.overrides) } : {}),
      // A product change to MIS without a time takes the default.
      ...(b.squareoff_time === undefined && b.product === 'MIS' && current.product !== 'MIS'
        ? { squareoff_time: null }
        : {}),
    });
    if (c.name === '')
      throw badRequest('Invalid scanner: name must not be blank', { name: ['must not be blank'] });
    if (c.name !== current.name) await this.nameFree(userId, c.name, id);
    const row = await this.repo
      .update(id, {
        name: c.name,
        action: c.action,
        exchange: c.exchange,
        product: c.product,
        quantity: c.quantity,
        capital: c.capital,
        overrides: JSON.stringify(c.overrides),
        window_start: c.window_start,
        window_end: c.window_end,
        squareoff_time: c.squareoff_time,
        max_symbols: c.max_symbols,
        mode: c.mode,
        enabled: toDbBool(c.enabled),
        // Turning a scanner live asks the administrator again (docs/rules/scanner.md#scanner-configuration).
        ...(c.mode === 'live' && current.mode !== 'live' ? { live_enabled: toDbBool(false) } : {}),
        updated_at: this.clock.now(),
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err)) throw conflict(`You already have a scanner named "${c.name}"`);
        throw err;
      });
    if (!row) throw notFound('No such scanner');
    return toView(row);
  }

  async remove(userId: number, id: number): Promise<void> {
    await this.owned(userId, id);
    await this.repo.softDelete(id, this.clock.now());
  }

  async rotate(userId: number, id: number): Promise<Issued> {
    await this.owned(userId, id);
    const { value: webhookId, digest } = issueCredential(CREDENTIAL_PREFIX.scanner);
    await this.repo.update(id, { webhook_digest: digest, updated_at: this.clock.now() });
    return { webhook_id: webhookId, webhook_url: this.url(webhookId) };
  }

  /** The administrator's live switch, on any user's scanner. */
  async setLive(id: number, enabled: boolean): Promise<ScannerView> {
    const row = await this.repo.update(id, { live_enabled: toDbBool(enabled), updated_at: this.clock.now() });
    if (!row) throw notFound('No such scanner');
    return toView(row);
  }

  async deliveries(userId: number, id: number, limit: number) {
    await this.owned(userId, id);
    return (await this.webhooks.deliveries('scanner', id, limit)).map((d) => ({
      id: Number(d.id),
      ts: Number(d.ts),
      ip: d.ip,
      result: d.result,
      http_status: d.http_status,
      action: d.action,
      message: d.message,
      payload: d.payload === null ? null : (JSON.parse(d.payload) as unknown),
      results: (readDetail(d.detail).results as SymbolResult[] | undefined) ?? null,
      duration_ms: Number(d.duration_ms),
    }));
  }
}
