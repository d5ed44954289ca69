/**
 * One strike of the chain: the call's figures mirrored left of the strike, the put's right of it
 * (LTP next to the strike). Memoised on what it shows, so a tick redraws only the rows whose prices
 * moved (docs/rules/web.md#live-prices: 41 rows × 2 sides ticking).
 */
import { memo, type ReactNode } from 'react';
import type { OptionType } from '../../../../../src/domain/instruments';
import {
  formatCount,
  formatDecimal,
  formatPrice,
  formatSignedMoney,
  NO_NUMBER,
} from '../../../format-number';
import { sameSide, type SideView } from '../../../features/market/option-chain-model';
import classes from './option-chain.module.css';

export type SideColumn = 'oiChange' | 'oi' | 'volume' | 'iv' | 'delta' | 'change' | 'ltp';

/** The call side's columns, outside in (the put side mirrors them). */
export const FULL_COLUMNS: readonly SideColumn[] = [
  'oiChange',
  'oi',
  'volume',
  'iv',
  'delta',
  'change',
  'ltp',
];
/** At phone width: what a trader reads first (docs/rules/web.md#phone-width). */
export const PHONE_COLUMNS: readonly SideColumn[] = ['oi', 'delta', 'ltp'];

export const COLUMN_LABELS: Record<SideColumn, string> = {
  oiChange: 'OI chg',
  oi: 'OI',
  volume: 'Volume',
  iv: 'IV %',
  delta: 'Delta',
  change: 'Chg',
  ltp: 'LTP',
};

export type Trade = (side: SideView, action: 'BUY' | 'SELL') => void;

export interface RowView {
  strike: number;
  atm: boolean;
  ce: SideView | null;
  pe: SideView | null;
}

const signed = (v: number | null, text: string) =>
  v === null ? (
    NO_NUMBER
  ) : (
    <span className={v > 0 ? classes.up : v < 0 ? classes.down : undefined}>{text}</span>
  );

function cell(col: SideColumn, s: SideView, type: OptionType, withPair: boolean, trade: Trade): ReactNode {
  switch (col) {
    case 'ltp': {
      const name = `${type === 'CE' ? 'call' : 'put'} ${s.symbol}`;
      return (
        <>
          <button
            type="button"
            className={classes.price}
            aria-label={`Order ticket for the ${name}`}
            onClick={() => trade(s, 'BUY')}
          >
            {formatPrice(s.ltp)}
          </button>
          {withPair && (
            <>
              <button
                type="button"
                className={`${classes.trade} ${classes.buy}`}
                aria-label={`Buy the ${name}`}
                onClick={() => trade(s, 'BUY')}
              >
                B
              </button>
              <button
                type="button"
                className={`${classes.trade} ${classes.sell}`}
                aria-label={`Sell the ${name}`}
                onClick={() => trade(s, 'SELL')}
              >
                S
              </button>
            </>
          )}
        </>
      );
    }
    case 'change':
      return signed(s.change, formatSignedMoney(s.change));
    case 'oi':
      return formatCount(s.oi);
    case 'oiChange':
      return signed(s.oiChange, `${(s.oiChange ?? 0) > 0 ? '+' : ''}${formatCount(s.oiChange)}`);
    case 'volume':
      return formatCount(s.volume);
    case 'iv':
      return s.iv === null ? NO_NUMBER : formatDecimal(s.iv);
    case 'delta':
      // Two places, as every chain shows a delta (0.50, -0.07): the column reads down evenly.
      return s.delta === null ? NO_NUMBER : formatPrice(Math.round(s.delta * 100) / 100);
  }
}

function Side({
  side,
  type,
  columns,
  withPair,
  trade,
}: {
  side: SideView | null;
  type: OptionType;
  columns: readonly SideColumn[];
  withPair: boolean;
  trade: Trade;
}) {
  const key = type === 'CE' ? 'ce' : 'pe';
  return (
    <>
      {columns.map((col) => (
        <td
          key={col}
          data-col={`${key}-${col}`}
          className={side?.itm ? classes.itm : undefined}
          data-itm={side?.itm ? 'true' : undefined}
        >
          {side ? cell(col, side, type, withPair, trade) : NO_NUMBER}
        </td>
      ))}
    </>
  );
}

function ChainRowImpl({
  row,
  columns,
  withPair,
  trade,
}: {
  row: RowView;
  columns: readonly SideColumn[];
  withPair: boolean;
  trade: Trade;
}) {
  return (
    <tr
      className={row.atm ? classes.atm : undefined}
      data-testid="chain-row"
      data-strike={row.strike}
      data-atm={row.atm ? 'true' : undefined}
    >
      <Side side={row.ce} type="CE" columns={columns} withPair={withPair} trade={trade} />
      <th
        scope="row"
        className={classes.strike}
        data-col="strike"
        aria-label={row.atm ? `${formatPrice(row.strike)}, ATM` : undefined}
      >
        {formatPrice(row.strike)}
        {row.atm && (
          <span className={classes.atmTag} aria-hidden>
            ATM
          </span>
        )}
      </th>
      <Side side={row.pe} type="PE" columns={[...columns].reverse()} withPair={withPair} trade={trade} />
    </tr>
  );
}

export const ChainRow = memo(
  ChainRowImpl,
  (a, b) =>
    a.row.strike === b.row.strike &&
    a.row.atm === b.row.atm &&
    sameSide(a.row.ce, b.row.ce) &&
    sameSide(a.row.pe, b.row.pe) &&
    a.columns === b.columns &&
    a.withPair === b.withPair &&
    a.trade === b.trade,
);
