/**
 * Broker apps (docs/rules/brokers.md#broker-apps): the install's bootstrap app from the `BROKER_*`
 * variables (id 0, read-only) and the apps an administrator adds in the console, each a broker with
 * the credentials its developer console issued — API key and secret sealed at rest (SecretBox,
 * purpose `broker-app`), never answered again (replace only). Each user picks one; no choice means
 * the bootstrap app. Apps are few: all are held in memory, opened, and reloaded here and on every
 * other instance (invalidation bus) when one changes, so the order path reads them without I/O.
 */
import type { Clock } from '../../platform/clock.js';
import { SecretBox } from '../../platform/crypto.js';
import { badRequest, conflict, notFound } from '../../platform/errors.js';
import type { InvalidationBus } from '../../platform/invalidation.js';
import { isUniqueViolation } from '../../platform/db/database.js';
import { APP_CREDENTIALS, BROKERS, isBroker } from '../../domain/brokers.js';

export { APP_CREDENTIALS };
import type { BrokerAppsRepository } from './broker-apps.repository.js';

export const BROKER_APP_TOPIC = 'broker-app';

/** An app with its credentials in clear (in memory only). */
export interface BrokerApp {
  /** 0: the bootstrap app (`BROKER_*`). */
  id: number;
  label: string;
  broker: string;
  apiKey: string;
  apiSecret: string;
  redirectUrl: string;
  /** Changes when the credentials do: adapters built on the old ones are replaced. */
  version: number;
  source: 'env' | 'console';
  createdAt: number | null;
}

/** An app as answers show it: whether each secret is set, never its value. */
export interface BrokerAppView {
  id: number;
  label: string;
  broker: string;
  source: 'env' | 'console';
  api_key_set: boolean;
  api_secret_set: boolean;
  redirect_url: string | null;
  /** Whether the app has what its broker's login needs. */
  complete: boolean;
  created_at: number | null;
}

export interface BrokerAppInput {
  label?: string;
  broker?: string;
  api_key?: string;
  api_secret?: string;
  redirect_url?: string;
}

export class BrokerAppsService {
  private readonly box: SecretBox;
  private apps = new Map<number, BrokerApp>();
  private loading: Promise<void> = Promise.resolve();

  constructor(
    private readonly repo: BrokerAppsRepository,
    appKey: string,
    private readonly clock: Clock,
    private readonly bus: InvalidationBus,
    /** The bootstrap app from `BROKER_*`, when `BROKER_NAME` is set. */
    private readonly bootstrap:
      Omit<BrokerApp, 'id' | 'label' | 'version' | 'source' | 'createdAt'> | undefined,
  ) {
    this.box = new SecretBox(appKey, 'broker-app');
    bus.subscribe(BROKER_APP_TOPIC, () => {
      this.loading = this.loading.then(() => this.load()).catch(() => undefined);
    });
  }

  /** Reads every app (start-up, and after any change). */
  async load(): Promise<void> {
    const rows = await this.repo.list();
    const next = new Map<number, BrokerApp>();
    if (this.bootstrap)
      next.set(0, {
        ...this.bootstrap,
        id: 0,
        label: 'Server configuration (BROKER_*)',
        version: 0,
        source: 'env',
        createdAt: null,
      });
    for (const r of rows) {
      const id = Number(r.id);
      next.set(id, {
        id,
        label: r.label,
        broker: r.broker,
        apiKey: this.open(r.api_key_encrypted),
        apiSecret: this.open(r.api_secret_encrypted),
        redirectUrl: r.redirect_url ?? '',
        version: Number(r.updated_at),
        source: 'console',
        createdAt: Number(r.created_at),
      });
    }
    this.apps = next;
  }

  /** A sealed value in clear; one this install cannot open counts as unset (replace it). */
  private open(sealed: string | null): string {
    if (!sealed) return '';
    try {
      return this.box.open(sealed);
    } catch {
      return '';
    }
  }

  /** The app by id, with its credentials (undefined: no such app). */
  get(id: number): BrokerApp | undefined {
    return this.apps.get(id);
  }

  /** Every app, the bootstrap one first. */
  list(): BrokerAppView[] {
    return [...this.apps.values()].map(view);
  }

  /** The app `userId` trades through: their choice, else the bootstrap app; undefined: none at all. */
  async appOf(userId: number): Promise<BrokerApp | undefined> {
    const chosen = await this.repo.choice(userId);
    return (chosen !== undefined ? this.apps.get(chosen) : undefined) ?? this.apps.get(0);
  }

  /** Records the user's choice; their session of another app is dropped by the caller's `changed`. */
  async choose(userId: number, appId: number): Promise<BrokerApp> {
    const app = this.apps.get(appId);
    if (!app) throw notFound(`No broker app ${appId}`);
    await this.repo.choose(userId, appId, this.clock.now());
    return app;
  }

  /** Forgets a deleted account's choice of app. */
  forgetUser(userId: number): Promise<void> {
    return this.repo.forgetUser(userId);
  }

  async create(input: BrokerAppInput): Promise<BrokerAppView> {
    const broker = (input.broker ?? '').trim().toLowerCase();
    if (!isBroker(broker)) throw badRequest(`broker must be one of ${BROKERS.join(', ')}`);
    const label = checkLabel(input.label);
    const fields = credentials(input);
    const missing = APP_CREDENTIALS[broker].filter((f) => !fields[f]);
    if (missing.length > 0) throw badRequest(`A ${broker} app needs ${missing.join(', ')}`);
    const now = this.clock.now();
    try {
      const id = await this.repo.insert({
        label,
        broker,
        api_key_encrypted: fields.api_key ? this.box.seal(fields.api_key) : null,
        api_secret_encrypted: fields.api_secret ? this.box.seal(fields.api_secret) : null,
        redirect_url: fields.redirect_url ?? null,
        created_at: now,
        updated_at: now,
      });
      await this.changed();
      return view(this.apps.get(id)!);
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(`A broker app named "${label}" exists`);
      throw err;
    }
  }

  /** Replaces what `input` gives (label, key, secret, redirect URL); the broker never changes. */
  async replace(id: number, input: BrokerAppInput): Promise<BrokerAppView> {
    const app = this.apps.get(id);
    if (id === 0 && app) throw badRequest('The server configuration app is set by BROKER_* variables');
    if (!app) throw notFound(`No broker app ${id}`);
    if (input.broker !== undefined && input.broker.trim().toLowerCase() !== app.broker)
      throw badRequest("An app's broker cannot change: add another app");
    const fields = credentials(input);
    const label = input.label === undefined ? undefined : checkLabel(input.label);
    const next = Math.max(this.clock.now(), app.version + 1);
    try {
      await this.repo.update(id, {
        ...(label !== undefined ? { label } : {}),
        ...(fields.api_key ? { api_key_encrypted: this.box.seal(fields.api_key) } : {}),
        ...(fields.api_secret ? { api_secret_encrypted: this.box.seal(fields.api_secret) } : {}),
        ...(fields.redirect_url ? { redirect_url: fields.redirect_url } : {}),
        updated_at: next,
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(`A broker app named "${label ?? ''}" exists`);
      throw err;
    }
    await this.changed();
    return view(this.apps.get(id)!);
  }

  /** Deletes an app with its users' choices and sessions; the users affected. */
  async remove(id: number): Promise<number[]> {
    if (id === 0 && this.apps.has(0))
      throw badRequest('The server configuration app is set by BROKER_* variables');
    const { found, users } = await this.repo.delete(id);
    if (!found) throw notFound(`No broker app ${id}`);
    await this.changed();
    return users;
  }

  private async changed(): Promise<void> {
    this.bus.publish(BROKER_APP_TOPIC, 'all');
    await this.loading;
    await this.load();
  }
}

function view(a: BrokerApp): BrokerAppView {
  const needs = isBroker(a.broker) ? APP_CREDENTIALS[a.broker] : [];
  const has = {
    api_key: a.apiKey !== '',
    api_secret: a.apiSecret !== '',
    redirect_url: a.redirectUrl !== '',
  };
  return {
    id: a.id,
    label: a.label,
    broker: a.broker,
    source: a.source,
    api_key_set: has.api_key,
    api_secret_set: has.api_secret,
    redirect_url: a.redirectUrl === '' ? null : a.redirectUrl,
    complete: needs.every((f) => has[f]),
    created_at: a.createdAt,
  };
}

function checkLabel(raw: string | undefined): string {
  const label = (raw ?? '').normalize('NFC').trim();
  if (!/^[\p{L}\p{N} ._()&'-]{1,64}$/u.test(label))
    throw badRequest("label: 1-64 letters, digits, spaces and . _ ( ) & ' -");
  return label;
}

/** The credential fields given, trimmed; the redirect URL must be http(s). */
function credentials(
  input: BrokerAppInput,
): Partial<Record<'api_key' | 'api_secret' | 'redirect_url', string>> {
  const out: Partial<Record<'api_key' | 'api_secret' | 'redirect_url', string>> = {};
  for (const f of ['api_key', 'api_secret'] as const) {
    const v = input[f]?.trim();
    if (v === undefined || v === '') continue;
    if (!/^[\x21-\x7e]{1,512}$/.test(v)) throw badRequest(`${f} has characters an API credential does not`);
    out[f] = v;
  }
  const url = input.redirect_url?.trim();
  if (url) {
    let ok = false;
    try {
      ok = ['http:', 'https:'].includes(new URL(url).protocol);
    } catch {
      ok = false;
    }
    if (!ok) throw badRequest('redirect_url must be an http(s) URL');
    out.redirect_url = url;
  }
  return out;
}
