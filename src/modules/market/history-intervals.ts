/**
 * The history intervals each broker's API serves, in OpenAlgo's notation and grouping
 * (`POST /api/v1/intervals`): Kite's historical candles come in 1, 3, 5, 10, 15, 30 and 60
 * minutes and days; Upstox's in 1 and 30 minutes, days, weeks and months; Dhan's charts APIs in
 * 1, 5, 15 and 60 minutes and days (its 25-minute candles are not among the intervals the history
 * route takes: quote-client.ts `HISTORY_INTERVALS`); Angel One's getCandleData in 1, 3, 5, 10, 15
 * and 30 minutes, an hour and days. Each entry lists what the broker's quote client serves
 * (its `intervals`).
 */
import type { Broker } from '../../domain/brokers.js';

export interface HistoryIntervals {
  months: string[];
  weeks: string[];
  days: string[];
  hours: string[];
  minutes: string[];
  seconds: string[];
}

export const HISTORY_INTERVALS: Readonly<Record<Broker, HistoryIntervals>> = {
  zerodha: {
    months: [],
    weeks: [],
    days: ['D'],
    hours: ['1h'],
    minutes: ['1m', '3m', '5m', '10m', '15m', '30m'],
    seconds: [],
  },
  upstox: {
    months: ['M'],
    weeks: ['W'],
    days: ['D'],
    hours: [],
    minutes: ['1m', '30m'],
    seconds: [],
  },
  dhan: {
    months: [],
    weeks: [],
    days: ['D'],
    hours: ['1h'],
    minutes: ['1m', '5m', '15m'],
    seconds: [],
  },
  fyers: {
    months: [],
    weeks: [],
    days: ['D'],
    hours: ['1h'],
    minutes: ['1m', '3m', '5m', '10m', '15m', '30m'],
    seconds: [],
  },
  shoonya: {
    months: [],
    weeks: [],
    days: ['D'],
    hours: ['1h'],
    minutes: ['1m', '3m', '5m', '10m', '15m', '30m'],
    seconds: [],
  },
  flattrade: {
    months: [],
    weeks: [],
    days: ['D'],
    hours: ['1h'],
    minutes: ['1m', '3m', '5m', '10m', '15m', '30m'],
    seconds: [],
  },
  angel: {
    months: [],
    weeks: [],
    days: ['D'],
    hours: ['1h'],
    minutes: ['1m', '3m', '5m', '10m', '15m', '30m'],
    seconds: [],
  },
};
