/**
 * What a broker app of each broker carries, as the `/admin/brokers` page asks for it
 * (docs/rules/brokers.md#broker-apps), from the one list the server checks too (src/domain/brokers.ts):
 * Zerodha, Upstox, Fyers and Flattrade an API key, a secret and the redirect URL registered with the
 * broker (`<server>/<broker>/callback`), Shoonya its vendor code and API key, Angel One its API key,
 * Dhan nothing (each user pastes their own token).
 */
import {
  APP_CREDENTIAL_NAMES,
  APP_CREDENTIALS,
  BROKERS,
  isBroker,
  type AppCredential,
} from '../../../../../src/domain/brokers';
import type { BrokerApp } from '../../../features/admin/api/broker-apps';

export type Credential = AppCredential;

export { BROKERS };

const NEEDS = APP_CREDENTIALS;

/** A credential in words. */
export const CREDENTIAL_LABEL: Readonly<Record<Credential, string>> = {
  api_key: 'API key',
  api_secret: 'API secret',
  redirect_url: 'Redirect URL',
};

/** A credential in the broker's own words (Fyers' app id, Shoonya's vendor code). */
export const credentialLabel = (broker: string, c: Credential): string =>
  (isBroker(broker) ? APP_CREDENTIAL_NAMES[broker]?.[c] : undefined) ?? CREDENTIAL_LABEL[c];

/** What an app of `broker` needs (nothing for a broker the console does not know). */
export const needsOf = (broker: string): readonly Credential[] => (isBroker(broker) ? NEEDS[broker] : []);

/** The redirect URL to register at the broker: this server's callback for it. */
export const callbackUrl = (broker: string, origin = window.location.origin): string =>
  `${origin}/${broker}/callback`;

/** Whether an app holds each credential. */
const holds = (app: BrokerApp, c: Credential): boolean =>
  c === 'api_key' ? app.api_key_set : c === 'api_secret' ? app.api_secret_set : app.redirect_url !== null;

/** What an app still needs for its broker's login, in words (empty: complete). */
export const missingOf = (app: BrokerApp): string[] =>
  needsOf(app.broker)
    .filter((c) => !holds(app, c))
    .map((c) => credentialLabel(app.broker, c));

/** A secret's state in a table cell: set, not set, or not needed by this broker. */
export function secretState(app: BrokerApp, c: Credential): string {
  if (holds(app, c)) return 'Set';
  return needsOf(app.broker).includes(c) ? 'Not set' : 'Not needed';
}
