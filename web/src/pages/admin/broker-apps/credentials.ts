/**
 * What a broker app of each broker carries, as the `/admin/brokers` page asks for it
 * (docs/rules/brokers.md#broker-apps): Zerodha and Upstox an API key, a secret and the redirect
 * URL registered with the broker (`<server>/<broker>/callback`), Angel One its API key, Dhan
 * nothing (each user pastes their own token). The server checks the same and says what is missing.
 */
import { BROKERS, isBroker, type Broker } from '../../../../../src/domain/brokers';
import type { BrokerApp } from '../../../features/admin/api/broker-apps';

export type Credential = 'api_key' | 'api_secret' | 'redirect_url';

export { BROKERS };

/** The credentials each broker's app needs, in the order the form asks for them. */
const NEEDS: Readonly<Record<Broker, readonly Credential[]>> = {
  zerodha: ['api_key', 'api_secret', 'redirect_url'],
  upstox: ['api_key', 'api_secret', 'redirect_url'],
  dhan: [],
  angel: ['api_key'],
};

/** A credential in words. */
export const CREDENTIAL_LABEL: Readonly<Record<Credential, string>> = {
  api_key: 'API key',
  api_secret: 'API secret',
  redirect_url: 'Redirect URL',
};

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
    .map((c) => CREDENTIAL_LABEL[c]);

/** A secret's state in a table cell: set, not set, or not needed by this broker. */
export function secretState(app: BrokerApp, c: Credential): string {
  if (holds(app, c)) return 'Set';
  return needsOf(app.broker).includes(c) ? 'Not set' : 'Not needed';
}
