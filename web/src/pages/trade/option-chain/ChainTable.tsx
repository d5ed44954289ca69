/**
 * The chain as a table: calls left, strike in the middle, puts right; at phone width the fewer
 * columns a trader reads first, the table scrolling inside its own box with the strike sticky
 * (docs/rules/web.md#phone-width).
 */
import { ChainRow, COLUMN_LABELS, FULL_COLUMNS, PHONE_COLUMNS, type RowView, type Trade } from './ChainRow';
import classes from './option-chain.module.css';

export function ChainTable({
  label,
  rows,
  phone,
  trade,
}: {
  label: string;
  rows: readonly RowView[];
  phone: boolean;
  trade: Trade;
}) {
  const columns = phone ? PHONE_COLUMNS : FULL_COLUMNS;
  return (
    <div className={classes.scroller} tabIndex={0} role="region" aria-label={`${label}, scrolls sideways`}>
      <table className={`${classes.table} ${phone ? classes.phone : ''}`} aria-label={label}>
        <thead>
          <tr>
            <th colSpan={columns.length} className={classes.sideHead} scope="colgroup">
              Calls
            </th>
            <th className={classes.strike} aria-hidden />
            <th colSpan={columns.length} className={classes.sideHead} scope="colgroup">
              Puts
            </th>
          </tr>
          <tr>
            {columns.map((c) => (
              <th key={`ce-${c}`} scope="col">
                {COLUMN_LABELS[c]}
              </th>
            ))}
            <th scope="col" className={classes.strike}>
              Strike
            </th>
            {[...columns].reverse().map((c) => (
              <th key={`pe-${c}`} scope="col">
                {COLUMN_LABELS[c]}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <ChainRow key={r.strike} row={r} columns={columns} withPair={!phone} trade={trade} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
