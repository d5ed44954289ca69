/**
 * The GTT form (docs/rules/web.md#gtt-page): a new GTT — SINGLE or OCO, the symbol with the order
 * ticket's suggestions, side, product, quantity, LIMIT or MARKET and the triggers and limits the
 * type takes, with the rules said beside them (a stoploss trigger below the LTP, a target above) —
 * or an active GTT's modification, prefilled (type, symbol, exchange, side and product stay). The
 * server decides: its messages show under the fields they name (docs/rules/web.md#field-messages).
 * In live mode the GTT goes to the broker after a confirmation that repeats it.
 */
import {
  Alert,
  Button,
  Group,
  NativeSelect,
  NumberInput,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import '@mantine/core/styles/FloatingIndicator.css';
import '@mantine/core/styles/SegmentedControl.css';
import { useId, useMemo, useState, type FormEvent } from 'react';
import { ORDER_EXCHANGES, type OrderExchange } from '../../../../../src/domain/exchanges';
import type { Action } from '../../../../../src/domain/orders';
import { useMode } from '../../../api/auth';
import { tickKey, useLiveTicks } from '../../../api/live-ticks';
import type { Outcome } from '../../../components/BookActions';
import { Suggestions, type SearchItem } from '../../../components/ticket/Suggestions';
import { isOrderExchange, lotSizeProblem, num } from '../../../components/ticket/ticket-fields';
import { useFacts, type Facts } from '../../../components/ticket/use-facts';
import {
  useModifyGttMutation,
  usePlaceGttMutation,
  type Gtt,
  type GttAnswer,
} from '../../../features/gtt/api/gtt';
import { formatPrice } from '../../../format-number';
import {
  allUnder,
  bodyOf,
  EMPTY_GTT,
  FIELD_ORDER as UNDER,
  gttProducts,
  serverError,
  shownFields,
  stateOf,
  type GttField,
  type GttFormState,
  type GttLeg,
  type GttPriceType,
  type GttProduct,
  type GttType,
} from './gtt-model';
import classes from './GttForm.module.css';
import { GttConfirm, sideColor } from './GttConfirm';

export function GttForm({
  gtt,
  onDone,
  onClose,
}: {
  /** The GTT modified; a new GTT without it. */
  gtt?: Gtt;
  onDone: (o: Outcome) => void;
  onClose: () => void;
}) {
  const fixed = gtt !== undefined;
  const [s, setS] = useState<GttFormState>(() => (gtt ? stateOf(gtt) : EMPTY_GTT));
  const set = <K extends keyof GttFormState>(k: K, v: GttFormState[K]) => setS((p) => ({ ...p, [k]: v }));
  const [known, setKnown] = useState<Facts | undefined>();
  const [suggest, setSuggest] = useState(false);
  const [checked, setChecked] = useState<Partial<Record<GttField, string>>>({});
  const [confirming, setConfirming] = useState(false);
  const id = useId();
  const mode = useMode(true);
  const live = mode.data?.mode === 'live';

  const { facts, ...lookup } = useFacts(s.symbol, s.exchange, known);
  const refs = useMemo(() => (facts ? [{ symbol: facts.symbol, exchange: facts.exchange }] : []), [facts]);
  const ltp = useLiveTicks(refs).ltp.get(facts ? tickKey(facts) : '');

  const done = (verb: string) => (a: GttAnswer) =>
    onDone({
      ok: true,
      message: `GTT ${a.trigger_id} ${verb}${a.mode === 'analyze' ? ' in the sandbox' : ' at the broker'}.`,
    });
  const place = usePlaceGttMutation({ onRefreshed: done('placed') });
  const modify = useModifyGttMutation({ onRefreshed: done('modified') });
  const m = fixed ? modify : place;
  const err = m.error;

  const send = () => {
    if (gtt) modify.mutate({ ...bodyOf(s), trigger_id: gtt.trigger_id });
    else place.mutate(bodyOf(s));
  };

  /** The checks the form makes itself; the server checks everything again. */
  const check = (): boolean => {
    const problems: Partial<Record<GttField, string>> = {};
    if (!s.symbol.trim()) problems.symbol = 'Give the symbol to trade.';
    const q = num(s.quantity);
    if (q === undefined || !Number.isInteger(q) || q <= 0)
      problems.quantity = 'Quantity must be a whole number above 0.';
    else {
      const lot = lotSizeProblem(s.exchange, q, facts?.lotsize);
      if (lot) problems.quantity = lot;
    }
    setChecked(problems);
    return Object.keys(problems).length === 0;
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    m.reset();
    if (!check()) return;
    if (live) setConfirming(true);
    else send();
  };

  const error = (f: GttField) => checked[f] ?? serverError(err, f);
  const shown = shownFields(s, fixed);
  const changeExchange = (e: OrderExchange) =>
    setS((p) => ({
      ...p,
      exchange: e,
      product: gttProducts(e).includes(p.product) ? p.product : (gttProducts(e)[0] ?? 'CNC'),
    }));
  const pick = (item: SearchItem) => {
    setS((p) => ({
      ...p,
      symbol: item.symbol,
      quantity: num(p.quantity) === undefined && item.lotsize > 1 ? item.lotsize : p.quantity,
    }));
    if (isOrderExchange(item.exchange)) changeExchange(item.exchange);
    setKnown({ ...item });
    setSuggest(false);
  };

  const ltpText = ltp === undefined ? 'the last price' : `the LTP ₹${formatPrice(ltp)}`;
  const hint: Record<GttLeg, string> = {
    sl: `Below ${ltpText}: fires when the price falls to it.`,
    tg: `Above ${ltpText}: fires when the price rises to it.`,
  };
  const limit = s.pricetype === 'LIMIT';
  const priceField = (
    label: string,
    key: 'slTrigger' | 'slLimit' | 'tgTrigger' | 'tgLimit',
    field: GttField,
    description?: string,
    extraError?: string,
  ) => (
    <NumberInput
      label={label}
      required
      withAsterisk={false}
      allowNegative={false}
      decimalScale={4}
      clampBehavior="none"
      value={s[key]}
      onChange={(v) => set(key, v)}
      description={description}
      inputWrapperOrder={UNDER}
      error={error(field) ?? extraError}
    />
  );
  const limitNote = `MARKET: the order goes at market when it fires.`;

  if (confirming)
    return (
      <GttConfirm
        s={s}
        fixed={fixed}
        error={err}
        pending={m.isPending}
        onSend={send}
        onBack={() => setConfirming(false)}
      />
    );

  return (
    <form
      onSubmit={submit}
      noValidate
      aria-label={gtt ? `Modify GTT ${gtt.trigger_id}` : 'New GTT'}
      data-testid="gtt-form"
    >
      <Stack gap="sm">
        {mode.data && (
          <Text size="sm" c={live ? 'red' : 'yellow.8'}>
            {live
              ? 'Live mode: the GTT goes to your broker after a confirmation.'
              : 'Analyzer mode: the GTT waits in the sandbox and reserves the margin of its order.'}
          </Text>
        )}
        {err && !allUnder(err, shown) && (
          <Alert color="red" title={fixed ? 'GTT not modified' : 'GTT not placed'} role="alert">
            {err.message}
          </Alert>
        )}
        {err && allUnder(err, shown) && (
          <Text size="sm" c="red" role="alert">
            {fixed ? 'GTT not modified' : 'GTT not placed'}: see the messages under the fields.
          </Text>
        )}
        {fixed ? (
          <Text>
            <span style={{ color: sideColor(s.action), fontWeight: 600 }}>{s.action}</span>{' '}
            <strong>{s.symbol}</strong> on {s.exchange}, {s.product},{' '}
            {s.type === 'OCO' ? 'OCO (two legs)' : 'single trigger'}. Type, symbol, exchange, side and product
            stay as they are.
          </Text>
        ) : (
          <>
            <Stack gap={4}>
              <Text size="sm" fw={500} id={`${id}-type`}>
                Type
              </Text>
              <SegmentedControl
                aria-labelledby={`${id}-type`}
                data={[
                  { value: 'SINGLE', label: 'Single trigger' },
                  { value: 'OCO', label: 'OCO (two legs)' },
                ]}
                value={s.type}
                onChange={(v) => set('type', v as GttType)}
                fullWidth
              />
            </Stack>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <TextInput
                label="Symbol"
                required
                withAsterisk={false}
                placeholder="SBIN"
                autoComplete="off"
                value={s.symbol}
                onChange={(e) => {
                  set('symbol', e.currentTarget.value);
                  setSuggest(true);
                  setChecked((c) => ({ ...c, symbol: undefined }));
                }}
                error={error('symbol')}
                data-autofocus
              />
              <NativeSelect
                label="Exchange"
                data={[...ORDER_EXCHANGES]}
                value={s.exchange}
                onChange={(e) => changeExchange(e.currentTarget.value as OrderExchange)}
                error={error('exchange')}
              />
            </SimpleGrid>
            {suggest && <Suggestions text={s.symbol} exchange={s.exchange} onPick={pick} />}
          </>
        )}
        <Text size="sm" c="dimmed" data-testid="gtt-facts" aria-live="polite">
          {lookup.state === 'looking' && 'Looking the symbol up…'}
          {lookup.state === 'terms' && 'Choose the contract among the suggestions.'}
          {lookup.state === 'unknown' &&
            `${s.symbol.trim().toUpperCase()} is not in the ${s.exchange} master contract.`}
          {lookup.state === 'error' && 'The symbol could not be looked up.'}
          {facts && (
            <>
              {[
                facts.symbol,
                facts.exchange,
                `Lot size ${facts.lotsize}`,
                facts.tick_size > 0 ? `Tick size ${facts.tick_size}` : '',
              ]
                .filter(Boolean)
                .join(' · ')}
              {' · '}
              <span data-testid="gtt-ltp">LTP {ltp === undefined ? '—' : `₹${formatPrice(ltp)}`}</span>
            </>
          )}
        </Text>
        {!fixed && (
          <Stack gap={4}>
            <Text size="sm" fw={500} id={`${id}-action`}>
              Action
            </Text>
            <SegmentedControl
              aria-labelledby={`${id}-action`}
              data={['BUY', 'SELL']}
              value={s.action}
              onChange={(v) => set('action', v as Action)}
              color={s.action === 'BUY' ? 'green' : 'red'}
              fullWidth
            />
          </Stack>
        )}
        <SimpleGrid cols={{ base: 2, sm: fixed ? 2 : 3 }}>
          <NumberInput
            label="Quantity"
            required
            withAsterisk={false}
            allowDecimal={false}
            allowNegative={false}
            clampBehavior="none"
            value={s.quantity}
            onChange={(v) => {
              set('quantity', v);
              setChecked((c) => ({ ...c, quantity: undefined }));
            }}
            step={facts && facts.lotsize > 1 ? facts.lotsize : 1}
            error={error('quantity')}
          />
          {!fixed && (
            <NativeSelect
              label="Product"
              data={gttProducts(s.exchange)}
              value={s.product}
              onChange={(e) => set('product', e.currentTarget.value as GttProduct)}
              error={error('product')}
            />
          )}
          <NativeSelect
            label="Price type"
            data={['LIMIT', 'MARKET']}
            value={s.pricetype}
            onChange={(e) => set('pricetype', e.currentTarget.value as GttPriceType)}
            error={error('pricetype')}
          />
        </SimpleGrid>
        {s.type === 'SINGLE' ? (
          <>
            <Stack gap={4}>
              <Text size="sm" fw={500} id={`${id}-leg`}>
                Fires when the price
              </Text>
              <SegmentedControl
                aria-labelledby={`${id}-leg`}
                data={[
                  { value: 'tg', label: 'Rises to a target' },
                  { value: 'sl', label: 'Falls to a stoploss' },
                ]}
                value={s.leg}
                onChange={(v) => set('leg', v as GttLeg)}
                fullWidth
              />
            </Stack>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              {s.leg === 'tg'
                ? priceField(
                    'Target trigger',
                    'tgTrigger',
                    'triggerprice_tg',
                    hint.tg,
                    serverError(err, 'triggerprice_sl'),
                  )
                : priceField(
                    'Stoploss trigger',
                    'slTrigger',
                    'triggerprice_sl',
                    hint.sl,
                    serverError(err, 'triggerprice_tg'),
                  )}
              {limit ? (
                priceField(
                  'Limit price',
                  s.leg === 'tg' ? 'tgLimit' : 'slLimit',
                  'price',
                  'The price of the LIMIT order it places.',
                )
              ) : (
                <Text size="sm" c="dimmed" pt={{ sm: 'xl' }}>
                  {limitNote}
                </Text>
              )}
            </SimpleGrid>
          </>
        ) : (
          <>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              {priceField('Stoploss trigger', 'slTrigger', 'triggerprice_sl', hint.sl)}
              {limit &&
                priceField('Stoploss limit', 'slLimit', 'stoploss', 'The stoploss leg’s LIMIT price.')}
              {priceField('Target trigger', 'tgTrigger', 'triggerprice_tg', hint.tg)}
              {limit && priceField('Target limit', 'tgLimit', 'target', 'The target leg’s LIMIT price.')}
            </SimpleGrid>
            <Text size="sm" c="dimmed">
              The leg reached first places its order; the other is cancelled.
              {limit ? '' : ` ${limitNote}`}
            </Text>
          </>
        )}
        <Group className={classes.footer}>
          <Button type="submit" loading={m.isPending}>
            {fixed ? 'Modify GTT' : 'Place GTT'}
          </Button>
          <Button variant="default" onClick={onClose}>
            Back
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
