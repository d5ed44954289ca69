/**
 * One underlying's chain: the expiry and strike-count pickers, the underlying's price, the table
 * and the builder. The chain is read again every 30 s (when ATM may re-centre) and the greeks
 * every 15 s; between reads the options and the underlying tick on the page's live socket in Quote
 * mode, each row redrawn only when its figures moved (docs/rules/web.md#live-prices).
 */
import { Anchor, Box, Card, Group, NativeSelect, Stack, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useCallback, useMemo, useState } from 'react';
import { Link } from 'react-router';
import { PAGE_PATHS } from '../../../../../src/modules/web/web-pages';
import { ApiError } from '../../../api/client';
import { useDeskReady } from '../../../api/desk';
import { tickKey, useLiveTicks, type InstrumentRef } from '../../../api/live-ticks';
import { PricesStale } from '../../../components/LiveStatus';
import { ErrorState, Loading } from '../../../components/states';
import { useOrderTicket } from '../../../components/ticket/ticket-context';
import { formatPrice, formatSignedMoney } from '../../../format-number';
import { ChainTable } from './ChainTable';
import type { RowView, Trade } from './ChainRow';
import {
  DEFAULT_STRIKE_COUNT,
  expiryCode,
  sideView,
  STRIKE_COUNTS,
  type ChainOption,
} from '../../../features/market/option-chain-model';
import classes from './option-chain.module.css';
import { StraddleBuilder } from './StraddleBuilder';
import { useChain, useExpiries, useGreeks } from '../../../features/market/api/option-chain';

/** A refusal in words: no expiry (404), no broker session (403, with the way to connect one). */
function Refusal({ error, what }: { error: unknown; what: string }) {
  const status = error instanceof ApiError ? error.status : 0;
  const title =
    status === 404
      ? `No ${what} found`
      : status === 403
        ? 'Option data needs a broker session'
        : `The ${what} could not be loaded`;
  return (
    <Stack gap="xs">
      <ErrorState error={error} title={title} />
      {status === 403 && (
        <Text size="sm">
          Option chains and greeks are priced by your broker, in both modes.{' '}
          <Anchor component={Link} to={PAGE_PATHS.broker}>
            Connect your broker
          </Anchor>
          .
        </Text>
      )}
    </Stack>
  );
}

const ltpOfOption = (o: ChainOption | null | undefined) => (o && o.ltp > 0 ? o.ltp : null);

export function ChainView({
  underlying,
  exchange,
  options,
}: {
  underlying: string;
  /** Where the underlying is quoted (NSE_INDEX, BSE_INDEX, NSE, BSE). */
  exchange: string;
  /** Where its options trade (NFO, BFO). */
  options: string;
}) {
  const phone = useMediaQuery('(max-width: 48em)') ?? false;
  const { mode } = useDeskReady();
  const ticket = useOrderTicket();
  const expiries = useExpiries(underlying, options);
  const [picked, setPicked] = useState<string>();
  const [strikeCount, setStrikeCount] = useState(DEFAULT_STRIKE_COUNT);
  const expiry = picked ?? expiries.data?.[0];
  const chain = useChain({
    underlying,
    exchange,
    expiry: expiry === undefined ? undefined : expiryCode(expiry),
    strikeCount,
  });
  const data = chain.data;

  const symbols = useMemo(
    () =>
      data?.chain.flatMap((s) => [s.ce?.symbol, s.pe?.symbol].filter((x): x is string => x !== undefined)) ??
      [],
    [data],
  );
  const refs = useMemo<InstrumentRef[]>(
    () => [{ symbol: underlying, exchange }, ...symbols.map((symbol) => ({ symbol, exchange: options }))],
    [underlying, exchange, symbols, options],
  );
  const ticks = useLiveTicks(refs, 'Quote');
  const greeks = useGreeks(symbols, options);

  const underlyingQuote = ticks.quotes.get(tickKey({ symbol: underlying, exchange }));
  const underlyingLtp = underlyingQuote?.ltp ?? data?.underlying_ltp ?? null;
  const underlyingChange = underlyingQuote?.change ?? null;

  const rows = useMemo<RowView[]>(() => {
    if (!data) return [];
    const quote = (s: string) => ticks.quotes.get(tickKey({ symbol: s, exchange: options }));
    return data.chain.map((s) => ({
      strike: s.strike,
      atm: s.strike === data.atm_strike,
      ce:
        s.ce &&
        sideView(s.ce, 'CE', s.strike, quote(s.ce.symbol), greeks.data?.get(s.ce.symbol), underlyingLtp),
      pe:
        s.pe &&
        sideView(s.pe, 'PE', s.strike, quote(s.pe.symbol), greeks.data?.get(s.pe.symbol), underlyingLtp),
    }));
  }, [data, ticks, greeks.data, underlyingLtp, options]);

  const trade = useCallback<Trade>(
    (s, action) =>
      ticket.open({
        symbol: s.symbol,
        exchange: options,
        action,
        quantity: s.lotsize,
        lotsize: s.lotsize,
        tick_size: s.tickSize,
      }),
    [ticket, options],
  );

  const ltpOf = useCallback(
    (symbol: string) => {
      const live = ticks.ltp.get(tickKey({ symbol, exchange: options }));
      if (live !== undefined && live > 0) return live;
      const strike = data?.chain.find((s) => s.ce?.symbol === symbol || s.pe?.symbol === symbol);
      return ltpOfOption(strike?.ce?.symbol === symbol ? strike.ce : strike?.pe);
    },
    [ticks, data, options],
  );

  if (expiries.isPending) return <Loading label="Loading the expiries…" />;
  if (expiries.isError) return <Refusal error={expiries.error} what="expiry" />;
  if (expiries.data.length === 0)
    return (
      <ErrorState
        error={new Error(`No option expiry of ${underlying} on ${options}.`)}
        title="No expiry found"
      />
    );

  const label = `Option chain of ${underlying} ${expiry ?? ''}`.trim();
  return (
    <Stack gap="md">
      <Group gap="sm" align="flex-end" wrap="wrap">
        <NativeSelect
          label="Expiry"
          value={expiry}
          onChange={(e) => setPicked(e.currentTarget.value)}
          data={expiries.data}
        />
        <NativeSelect
          label="Strikes each side"
          value={String(strikeCount)}
          onChange={(e) => setStrikeCount(Number(e.currentTarget.value))}
          data={STRIKE_COUNTS.map(String)}
        />
        <Stack gap={0} aria-label={`${underlying} price`} role="group">
          <Text size="xs" c="dimmed">
            {underlying} ({exchange})
          </Text>
          <Text fw={700} size="lg">
            <span data-testid="underlying-ltp">{formatPrice(underlyingLtp)}</span>{' '}
            {underlyingChange !== null && (
              <Text
                component="span"
                size="sm"
                className={
                  underlyingChange > 0 ? classes.up : underlyingChange < 0 ? classes.down : undefined
                }
                data-testid="underlying-change"
              >
                {formatSignedMoney(underlyingChange)}
              </Text>
            )}
          </Text>
        </Stack>
        {data && (
          <Stack gap={0}>
            <Text size="xs" c="dimmed">
              ATM strike
            </Text>
            <Text fw={700} size="lg" data-testid="atm-strike">
              {formatPrice(data.atm_strike)}
            </Text>
          </Stack>
        )}
        {ticks.stale && <PricesStale />}
      </Group>

      <Card withBorder p={0}>
        {chain.isPending && <Loading label="Loading the option chain…" />}
        {chain.isError && (
          <Box p="md">
            <Refusal error={chain.error} what="option chain" />
          </Box>
        )}
        {data && <ChainTable label={label} rows={rows} phone={phone} trade={trade} />}
      </Card>
      {data && (
        <Text size="xs" c="dimmed">
          Shaded: in the money. IV and delta every 15 s
          {greeks.isError ? ` (not read: ${greeks.error.message})` : ''}; OI change shows once a previous OI
          is known. A price opens the order ticket.
        </Text>
      )}
      {data && <StraddleBuilder chain={data} exchange={options} ltpOf={ltpOf} mode={mode} />}
    </Stack>
  );
}
