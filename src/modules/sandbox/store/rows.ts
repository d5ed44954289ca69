/** The sandbox's row types (sandbox.repository.ts and the statements it compiles share them). */
import type { Insertable, Selectable } from 'kysely';
import type {
  SandboxAccountsTable,
  SandboxEquityDaysTable,
  SandboxGttsTable,
  SandboxHoldingsTable,
  SandboxOrdersTable,
  SandboxPositionsTable,
  SandboxTradesTable,
} from '../../../db/schema.js';

export type AccountRow = Selectable<SandboxAccountsTable>;
export type OrderRow = Selectable<SandboxOrdersTable>;
export type TradeRow = Selectable<SandboxTradesTable>;
export type PositionRow = Selectable<SandboxPositionsTable>;
export type HoldingRow = Selectable<SandboxHoldingsTable>;
export type EquityDayRow = Selectable<SandboxEquityDaysTable>;
export type GttRow = Selectable<SandboxGttsTable>;
export type NewOrder = Insertable<SandboxOrdersTable>;
