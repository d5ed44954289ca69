/** Row types of the error log (migrations 0013 and 0033). Split from schema.ts, which re-exports them. */
import type { Id } from './column-types.js';

/** The error log's rows by level and origin, kept by triggers on `error_log` (migration 0033). */
export interface ErrorLogCountsTable {
  level: string;
  origin: string;
  n: number;
}

/** Warnings and errors of the server's log and of browsers; bounded. */
export interface ErrorLogTable {
  id: Id;
  created_at: number;
  /** `warn`, `error` or `fatal`. */
  level: string;
  /** `server` (the process log) or `client` (a browser report). */
  origin: string;
  module: string | null;
  message: string;
  /** `Type: message` of the logged exception. */
  exception: string | null;
  stack: string | null;
  request_id: string | null;
  method: string | null;
  path: string | null;
  user_id: number | null;
  url: string | null;
  user_agent: string | null;
  component_stack: string | null;
  /** Other fields of the record as JSON (already redacted), capped. */
  context: string | null;
  /** Hash of level + module + normalised message (groups). */
  fingerprint: string;
}
