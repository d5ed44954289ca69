/**
 * The brokers algodesk trades with, written once: each has a live adapter (orders, quotes, login)
 * and a master-contract importer. `src/domain/domain.test.ts` fails when the list is written out
 * anywhere else in `src/`.
 */
export const BROKERS = ['zerodha', 'upstox', 'dhan', 'angel', 'fyers', 'shoonya', 'flattrade'] as const;
export type Broker = (typeof BROKERS)[number];

/** Whether `name` is a broker algodesk supports. */
export const isBroker = (name: string): name is Broker => (BROKERS as readonly string[]).includes(name);

/** A credential of a broker app (docs/rules/brokers.md#broker-apps). */
export type AppCredential = 'api_key' | 'api_secret' | 'redirect_url';

/** The credentials each broker's app needs, in the order a form asks for them (Dhan's token is the user's own). */
export const APP_CREDENTIALS: Readonly<Record<Broker, readonly AppCredential[]>> = {
  zerodha: ['api_key', 'api_secret', 'redirect_url'],
  upstox: ['api_key', 'api_secret', 'redirect_url'],
  dhan: [],
  angel: ['api_key'],
  fyers: ['api_key', 'api_secret', 'redirect_url'],
  shoonya: ['api_key', 'api_secret'],
  flattrade: ['api_key', 'api_secret', 'redirect_url'],
};

/** What a broker's developer console calls a credential, where it is not "API key"/"API secret". */
export const APP_CREDENTIAL_NAMES: Readonly<Partial<Record<Broker, Partial<Record<AppCredential, string>>>>> =
  {
    fyers: { api_key: 'App ID', api_secret: 'Secret ID' },
    shoonya: { api_key: 'Vendor code', api_secret: 'API key' },
  };
