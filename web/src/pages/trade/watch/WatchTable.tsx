/**
 * A market watch list's rows, ticking (docs/rules/web.md#market-watch): each instrument's LTP,
 * change and change % from the live feed (Quote mode, one subscription per instrument however many
 * parts of the page show it), the price cell flashing green or red when the LTP moves; B and S open
 * the order ticket prefilled; the symbol opens its chart. A row is selected by a click or the arrow
 * keys; B / S trade the selected row, Alt+↑ / Alt+↓ (or the ↑ ↓ buttons, or a drag) move it,
 * Delete removes it, Enter opens its chart. Rows are memoised: a tick redraws only the rows whose
 * prices changed, and the cells are plain table elements styled once (WatchTable.module.css), so
 * 100 rows ticking cost no component per cell.
 */
import { Group, Stack, VisuallyHidden } from '@mantine/core';
import { memo, useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { chartPagePath } from '../../../../../src/modules/web/web-pages';
import { tickKey, useLiveTicks, type LiveQuote } from '../../../api/live-ticks';
import { PricesStale } from '../../../components/LiveStatus';
import { useOrderTicket } from '../../../components/ticket/ticket-context';
import { formatPrice, formatSignedMoney, formatSignedPercent, NO_NUMBER } from '../../../format-number';
import type { WatchItem } from '../../../features/watchlist/api/watchlists';
import classes from './WatchTable.module.css';

type Flash = '' | 'up0' | 'up1' | 'down0' | 'down1';

/** The flash class for a new LTP: the direction of the move, alternating so each move restarts it. */
function useFlash(ltp: number | undefined): Flash {
  const last = useRef<number | undefined>(ltp);
  const [flash, setFlash] = useState<Flash>('');
  useEffect(() => {
    const before = last.current;
    last.current = ltp;
    if (before === undefined || ltp === undefined || ltp === before) return;
    const dir = ltp > before ? 'up' : 'down';
    setFlash((f) => (f === `${dir}0` ? `${dir}1` : `${dir}0`));
  }, [ltp]);
  return flash;
}

const toneClass = (v: number | null | undefined) =>
  typeof v !== 'number' || v === 0 ? '' : v > 0 ? classes.gain! : classes.loss!;

interface RowProps {
  item: WatchItem;
  quote: LiveQuote | undefined;
  selected: boolean;
  first: boolean;
  last: boolean;
  compact: boolean;
  dragging: boolean;
  onSelect(id: number): void;
  onTrade(item: WatchItem, action: 'BUY' | 'SELL'): void;
  onMove?(item: WatchItem, by: -1 | 1): void;
  onRemove?(item: WatchItem): void;
  onDragStart?(id: number): void;
  onDropOn?(id: number): void;
  onDragEnd?(): void;
}

const Row = memo(function Row({
  item,
  quote,
  selected,
  first,
  last,
  compact,
  dragging,
  onSelect,
  onTrade,
  onMove,
  onRemove,
  onDragStart,
  onDropOn,
  onDragEnd,
}: RowProps) {
  const flash = useFlash(quote?.ltp);
  const name = `${item.symbol} ${item.exchange}`;
  const change = quote?.change;
  const pct = quote?.change_percent;
  return (
    <tr
      className={classes.row}
      data-testid="watch-row"
      data-symbol={item.symbol}
      aria-selected={selected}
      data-dragging={dragging}
      onClick={() => onSelect(item.id)}
      draggable={onDropOn !== undefined}
      onDragStart={(e) => {
        e.dataTransfer.effectAllowed = 'move';
        e.dataTransfer.setData('text/plain', String(item.id));
        onDragStart?.(item.id);
      }}
      onDragOver={(e) => {
        if (onDropOn) e.preventDefault();
      }}
      onDrop={(e) => {
        e.preventDefault();
        onDropOn?.(item.id);
      }}
      onDragEnd={onDragEnd}
    >
      <td className={classes.symbol}>
        <Link to={chartPagePath(item.exchange, item.symbol)} className={classes.link}>
          {item.symbol}
        </Link>
        <span className={classes.exchange}>{item.exchange}</span>
      </td>
      <td className={`${classes.num} ${classes.ltp} ${flash ? classes[flash] : ''}`} data-label="LTP">
        {quote ? formatPrice(quote.ltp) : NO_NUMBER}
      </td>
      {!compact && (
        <td className={`${classes.num} ${classes.wide} ${toneClass(change)}`} data-label="Change">
          {change == null ? NO_NUMBER : formatSignedMoney(change)}
        </td>
      )}
      <td className={`${classes.num} ${toneClass(pct)}`} data-label="Change %">
        {pct == null ? NO_NUMBER : formatSignedPercent(pct)}
      </td>
      <td className={classes.actions}>
        <button
          type="button"
          className={`${classes.trade} ${classes.buy}`}
          aria-label={`Buy ${name}`}
          onClick={(e) => {
            e.stopPropagation();
            onTrade(item, 'BUY');
          }}
        >
          B
        </button>
        <button
          type="button"
          className={`${classes.trade} ${classes.sell}`}
          aria-label={`Sell ${name}`}
          onClick={(e) => {
            e.stopPropagation();
            onTrade(item, 'SELL');
          }}
        >
          S
        </button>
        {onMove && (
          <>
            <button
              type="button"
              className={`${classes.icon} ${classes.manage}`}
              aria-label={`Move ${name} up`}
              disabled={first}
              onClick={(e) => {
                e.stopPropagation();
                onMove(item, -1);
              }}
            >
              ↑
            </button>
            <button
              type="button"
              className={`${classes.icon} ${classes.manage}`}
              aria-label={`Move ${name} down`}
              disabled={last}
              onClick={(e) => {
                e.stopPropagation();
                onMove(item, 1);
              }}
            >
              ↓
            </button>
          </>
        )}
        {onRemove && (
          <button
            type="button"
            className={`${classes.icon} ${classes.manage}`}
            aria-label={`Remove ${name}`}
            onClick={(e) => {
              e.stopPropagation();
              onRemove(item);
            }}
          >
            ×
          </button>
        )}
      </td>
    </tr>
  );
});

/** Moves `id` by `by` places (or onto `target`'s place) in `ids`; the same list when it cannot move. */
export function moved(ids: readonly number[], id: number, to: number): number[] {
  const from = ids.indexOf(id);
  if (from < 0 || to < 0 || to >= ids.length || to === from) return [...ids];
  const out = ids.filter((x) => x !== id);
  out.splice(to, 0, id);
  return out;
}

export function WatchTable({
  label,
  items,
  compact = false,
  onReorder,
  onRemove,
}: {
  label: string;
  items: readonly WatchItem[];
  /** The dashboard's panel: no absolute change column, no managing. */
  compact?: boolean;
  /** The list's item ids in a new order (a move or a drop). */
  onReorder?(ids: number[]): void;
  onRemove?(item: WatchItem): void;
}) {
  const refs = useMemo(() => items.map((i) => ({ symbol: i.symbol, exchange: i.exchange })), [items]);
  const ticks = useLiveTicks(refs, 'Quote');
  const ticket = useOrderTicket();
  const navigate = useNavigate();
  const [selected, setSelected] = useState<number | undefined>(undefined);
  const [dragged, setDragged] = useState<number | undefined>(undefined);
  const dragEnd = useCallback(() => setDragged(undefined), []);
  const ids = useMemo(() => items.map((i) => i.id), [items]);
  const current = selected !== undefined && ids.includes(selected) ? selected : undefined;

  const trade = useMemo(
    () => (item: WatchItem, action: 'BUY' | 'SELL') =>
      ticket.open({ symbol: item.symbol, exchange: item.exchange, action }),
    [ticket],
  );
  const move = useMemo(
    () =>
      onReorder
        ? (item: WatchItem, by: -1 | 1) => onReorder(moved(ids, item.id, ids.indexOf(item.id) + by))
        : undefined,
    [onReorder, ids],
  );
  const dropOn = useMemo(
    () =>
      onReorder
        ? (target: number) => {
            if (dragged !== undefined && dragged !== target)
              onReorder(moved(ids, dragged, ids.indexOf(target)));
            setDragged(undefined);
          }
        : undefined,
    [onReorder, ids, dragged],
  );

  const onKeyDown = (e: KeyboardEvent<HTMLTableElement>) => {
    if (items.length === 0 || e.target !== e.currentTarget) return;
    const at = current === undefined ? -1 : ids.indexOf(current);
    const item = at >= 0 ? items[at] : undefined;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const by = e.key === 'ArrowDown' ? 1 : -1;
      if (e.altKey && item && move) move(item, by);
      else setSelected(ids[Math.min(ids.length - 1, Math.max(0, at < 0 ? 0 : at + by))]);
    } else if (!item) return;
    else if (e.key === 'b' || e.key === 'B') {
      e.preventDefault();
      trade(item, 'BUY');
    } else if (e.key === 's' || e.key === 'S') {
      e.preventDefault();
      trade(item, 'SELL');
    } else if (e.key === 'Delete' && onRemove) {
      e.preventDefault();
      onRemove(item);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      void navigate(chartPagePath(item.exchange, item.symbol));
    }
  };

  return (
    <Stack gap={4}>
      {ticks.stale && (
        <Group justify="flex-end">
          <PricesStale />
        </Group>
      )}
      <table
        className={`${classes.table} ${compact ? classes.compact : ''}`}
        aria-label={label}
        tabIndex={0}
        onKeyDown={onKeyDown}
        aria-description="Arrow keys choose a row; B buys it, S sells it, Enter opens its chart"
      >
        <thead>
          <tr>
            <th>Symbol</th>
            <th className={`${classes.num} ${classes.colPrice}`}>LTP</th>
            {!compact && <th className={`${classes.num} ${classes.wide} ${classes.colPrice}`}>Change</th>}
            <th className={`${classes.num} ${classes.colChange}`}>Chg %</th>
            <th className={`${classes.actions} ${classes.colActions}`}>
              <VisuallyHidden>Actions</VisuallyHidden>
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((item, n) => (
            <Row
              key={item.id}
              item={item}
              quote={ticks.quotes.get(tickKey(item))}
              selected={item.id === current}
              first={n === 0}
              last={n === items.length - 1}
              compact={compact}
              dragging={item.id === dragged}
              onSelect={setSelected}
              onTrade={trade}
              onMove={move}
              onRemove={onRemove}
              onDragStart={onReorder ? setDragged : undefined}
              onDropOn={dropOn}
              onDragEnd={dragEnd}
            />
          ))}
        </tbody>
      </table>
    </Stack>
  );
}
