/**
 * A scanner and its deliveries as the server sends them (docs/rules/scanner.md), the webhook id and
 * URL issued at creation and rotation, and the query key and base path the scanner pages share.
 */
export interface Scanner {
  id: number;
  name: string;
  action: string;
  exchange: string;
  product: string;
  quantity: number | null;
  capital: number | null;
  overrides: Record<string, number>;
  window_start: string;
  window_end: string;
  squareoff_time: string | null;
  max_symbols: number;
  mode: 'analyze' | 'live';
  enabled: boolean;
  live_enabled: boolean;
  created_at: number;
  updated_at: number;
}
interface SymbolResult {
  symbol: string;
  status: 'success' | 'error' | 'skipped';
  orderid?: string;
  quantity?: number;
  message?: string;
}
export interface Delivery {
  id: number;
  ts: number;
  ip: string;
  result: string;
  http_status: number;
  action: string | null;
  message: string;
  results: SymbolResult[] | null;
  duration_ms: number;
}
export interface Issued {
  webhook_id: string;
  webhook_url: string;
}

export const KEY = ['scanners'] as const;
export const BASE = '/scanner/api/scanners';
