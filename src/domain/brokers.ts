/**
 * The brokers algodesk trades with, written once: each has a live adapter (orders, quotes, login)
 * and a master-contract importer. `src/domain/domain.test.ts` fails when the list is written out
 * anywhere else in `src/`.
 */
export const BROKERS = ['zerodha', 'upstox', 'dhan', 'angel', 'fyers', 'shoonya', 'flattrade'] as const;
export type Broker = (typeof BROKERS)[number];

/** Whether `name` is a broker algodesk supports. */
export const isBroker = (name: string): name is Broker => (BROKERS as readonly string[]).includes(name);
