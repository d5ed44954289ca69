import { Type } from 'typebox';

/** `POST /api/v1/pnl/symbols` (OpenAlgo's fields; rupees). */
export const PnlSymbolsResponse = Type.Object({
  status: Type.Literal('success'),
  data: Type.Array(
    Type.Object({
      symbol: Type.String(),
      exchange: Type.String(),
      product: Type.String(),
      quantity: Type.Integer(),
      pnl: Type.Number(),
      unrealized_pnl: Type.Number(),
      today_realized_pnl: Type.Number(),
      total_pnl_today: Type.Number(),
    }),
  ),
  total_pnl: Type.Number(),
  total_unrealized_pnl: Type.Number(),
  total_today_realized_pnl: Type.Number(),
  total_pnl_today: Type.Number(),
  mode: Type.Literal('analyze'),
});
