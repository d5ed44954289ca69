/**
 * The wizard's leg builder (docs/rules/strategies.md#batch-leg-resolution and
 * #signal-contract-at-signal-time). An instrument leg names a symbol on an exchange: while it is
 * typed the master contract is searched (`/search/api/search`) for suggestions, and the exact
 * contract, when found, is described under the field (name, type, lot size); the server's own
 * check at creation is what decides, and its message shows under the field it names. A batch
 * strategy's derivative leg names an underlying, an option type, an expiry rank and (options) a
 * strike offset from ATM, resolved when a run starts.
 */
import {
  Autocomplete,
  Button,
  Card,
  Group,
  NativeSelect,
  NumberInput,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
} from '@mantine/core';
import '@mantine/core/styles/Combobox.css';
import '@mantine/core/styles/SegmentedControl.css';
import { useDebouncedValue } from '@mantine/hooks';
import { ACTIONS } from '../../../../src/domain/orders';
import { DERIVATIVE_TYPES } from '../../../../src/domain/instruments';
import { FNO_ORDER_EXCHANGES, ORDER_EXCHANGES } from '../../../../src/domain/exchanges';
import type { StrategyKind } from '../../../../src/modules/strategies/strategy.types';
import { useLegSearch, useUnderlyings } from '../../features/strategies/api/leg-search';
import { expiryLabel } from './model';

export interface LegDraft {
  key: number;
  leg_type: 'instrument' | 'derivative';
  exchange: string;
  symbol: string;
  underlying: string;
  option_type: string;
  expiry_rank: number;
  strike_offset: number | string;
  quantity: number | string;
  quantity_unit: 'units' | 'lots';
  side: string;
}

export const newLeg = (key: number, kind: StrategyKind): LegDraft => ({
  key,
  leg_type: 'instrument',
  exchange: 'NSE',
  symbol: '',
  underlying: '',
  option_type: 'CE',
  expiry_rank: 0,
  strike_offset: 0,
  quantity: 1,
  quantity_unit: 'units',
  side: kind === 'batch' ? 'BUY' : '',
});

/** The body of one leg as the create route takes it (strategy.schema.ts `LegBody`). */
export function legBody(l: LegDraft, kind: StrategyKind): Record<string, unknown> {
  const quantity = l.quantity === '' ? 0 : Number(l.quantity);
  const side = kind === 'batch' ? { side: l.side } : {};
  if (kind === 'batch' && l.leg_type === 'derivative')
    return {
      underlying: l.underlying.trim().toUpperCase(),
      exchange: l.exchange,
      option_type: l.option_type,
      expiry_rank: l.expiry_rank,
      ...(l.option_type === 'FUT'
        ? {}
        : { strike_offset: l.strike_offset === '' ? 0 : Number(l.strike_offset) }),
      quantity,
      ...side,
    };
  return {
    symbol: l.symbol.trim().toUpperCase(),
    exchange: l.exchange,
    quantity,
    quantity_unit: l.quantity_unit,
    ...side,
  };
}

/** The contract a symbol names on an exchange, searched as it is typed. */
function useInstrument(symbol: string, exchange: string) {
  const [q] = useDebouncedValue(symbol.trim().toUpperCase(), 250);
  const search = useLegSearch(exchange, q);
  const results = search.data?.results ?? [];
  return {
    q,
    settled: q === symbol.trim().toUpperCase() && !search.isFetching,
    found: search.data ? results.find((r) => r.symbol === q) : undefined,
    searched: search.data !== undefined,
    suggestions: [...new Set(results.slice(0, 8).map((r) => r.symbol))],
    error: search.error,
  };
}

function InstrumentCheck({
  inst,
  exchange,
  n,
}: {
  inst: ReturnType<typeof useInstrument>;
  exchange: string;
  n: number;
}) {
  if (inst.q.length < 2 || !inst.settled || !inst.searched) return null;
  if (inst.found)
    return (
      <Text size="xs" c="teal.8" data-testid={`leg-${n}-contract`}>
        In the master contract: {inst.found.name || inst.found.symbol} · {inst.found.instrumenttype || 'EQ'} ·
        lot {inst.found.lotsize}
      </Text>
    );
  return (
    <Text size="xs" c="orange.8" data-testid={`leg-${n}-contract`}>
      No {inst.q} on {exchange} in the master contract: the server will say whether it takes it.
    </Text>
  );
}

/** A leg's typed field: the leg, its number, the server's message of the field, and the change. */
interface TextFieldProps {
  leg: LegDraft;
  n: number;
  error: string | undefined;
  onChange: (v: string) => void;
}

function SymbolField({ leg, n, error, onChange }: TextFieldProps) {
  const inst = useInstrument(leg.symbol, leg.exchange);
  return (
    <Autocomplete
      label={`Leg ${n} symbol`}
      placeholder="SBIN"
      value={leg.symbol}
      onChange={(v) => onChange(v.toUpperCase())}
      data={inst.suggestions}
      error={error}
      openOnFocus={false}
      autoComplete="off"
      maxLength={64}
      description={<InstrumentCheck inst={inst} exchange={leg.exchange} n={n} />}
    />
  );
}

function UnderlyingField({ leg, n, error, onChange }: TextFieldProps) {
  const list = useUnderlyings(leg.exchange);
  const typed = leg.underlying.trim().toUpperCase();
  const data = (list.data?.underlyings ?? []).filter((u) => u.startsWith(typed)).slice(0, 8);
  const known = list.data?.underlyings.includes(typed);
  return (
    <Autocomplete
      label={`Leg ${n} underlying`}
      placeholder="NIFTY"
      value={leg.underlying}
      onChange={(v) => onChange(v.toUpperCase())}
      data={data}
      error={error}
      openOnFocus={false}
      autoComplete="off"
      maxLength={40}
      description={
        typed.length > 0 && list.data ? (
          known ? (
            <Text size="xs" c="teal.8">
              {typed} has derivatives on {leg.exchange}
            </Text>
          ) : (
            <Text size="xs" c="orange.8">
              No {typed} derivatives on {leg.exchange} in the master contract
            </Text>
          )
        ) : undefined
      }
    />
  );
}

/** One leg's fields; `error(field)` is the server's message for `legs[i].<field>`. */
export function LegFields({
  leg,
  n,
  kind,
  error,
  onChange,
  onRemove,
}: {
  leg: LegDraft;
  n: number;
  kind: StrategyKind;
  error: (field: string) => string | undefined;
  onChange: (patch: Partial<LegDraft>) => void;
  onRemove?: () => void;
}) {
  const derivative = kind === 'batch' && leg.leg_type === 'derivative';
  const exchanges = derivative
    ? ORDER_EXCHANGES.filter((e) => FNO_ORDER_EXCHANGES.has(e))
    : [...ORDER_EXCHANGES];
  return (
    <Card withBorder p="sm" role="group" aria-label={`Leg ${n}`}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Text fw={600}>Leg {n}</Text>
          {onRemove && (
            <Button size="xs" variant="subtle" color="red" onClick={onRemove} aria-label={`Remove leg ${n}`}>
              Remove
            </Button>
          )}
        </Group>
        {kind === 'batch' && (
          <SegmentedControl
            aria-label={`Leg ${n} type`}
            value={leg.leg_type}
            onChange={(v) => {
              const type = v as LegDraft['leg_type'];
              onChange({
                leg_type: type,
                ...(type === 'derivative'
                  ? {
                      exchange: FNO_ORDER_EXCHANGES.has(leg.exchange) ? leg.exchange : 'NFO',
                      quantity_unit: 'lots',
                    }
                  : {}),
              });
            }}
            data={[
              { value: 'instrument', label: 'One instrument' },
              { value: 'derivative', label: 'Future or option by expiry and strike' },
            ]}
          />
        )}
        <SimpleGrid cols={{ base: 1, sm: kind === 'batch' ? 3 : 2 }}>
          <NativeSelect
            label={`Leg ${n} exchange`}
            data={exchanges}
            value={leg.exchange}
            onChange={(e) => onChange({ exchange: e.currentTarget.value })}
            error={error('exchange')}
          />
          {derivative ? (
            <UnderlyingField
              leg={leg}
              n={n}
              error={error('underlying')}
              onChange={(underlying) => onChange({ underlying })}
            />
          ) : (
            <SymbolField
              leg={leg}
              n={n}
              error={error('symbol')}
              onChange={(symbol) => onChange({ symbol })}
            />
          )}
          {kind === 'batch' && (
            <NativeSelect
              label={`Leg ${n} side`}
              data={[...ACTIONS]}
              value={leg.side}
              onChange={(e) => onChange({ side: e.currentTarget.value })}
              error={error('side')}
            />
          )}
        </SimpleGrid>
        {derivative && (
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <NativeSelect
              label={`Leg ${n} option type`}
              data={DERIVATIVE_TYPES.map((t) => ({
                value: t,
                label: t === 'FUT' ? 'FUT (future)' : `${t} (${t === 'CE' ? 'call' : 'put'})`,
              }))}
              value={leg.option_type}
              onChange={(e) => onChange({ option_type: e.currentTarget.value })}
              error={error('option_type')}
            />
            <NativeSelect
              label={`Leg ${n} expiry`}
              description="Among the underlying's listed expiries, at run start"
              data={[0, 1, 2, 3, 4, 5].map((r) => ({ value: String(r), label: `${r}: ${expiryLabel(r)}` }))}
              value={String(leg.expiry_rank)}
              onChange={(e) => onChange({ expiry_rank: Number(e.currentTarget.value) })}
              error={error('expiry_rank')}
            />
            {leg.option_type !== 'FUT' && (
              <NumberInput
                label={`Leg ${n} strike offset`}
                description="Strikes from ATM: 0 is ATM, +1 the next strike up, −1 the next down"
                allowDecimal={false}
                min={-50}
                max={50}
                clampBehavior="none"
                value={leg.strike_offset}
                onChange={(v) => onChange({ strike_offset: v })}
                error={error('strike_offset')}
              />
            )}
          </SimpleGrid>
        )}
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <NumberInput
            label={`Leg ${n} quantity`}
            allowDecimal={false}
            min={1}
            clampBehavior="none"
            value={leg.quantity}
            onChange={(v) => onChange({ quantity: v })}
            error={error('quantity')}
          />
          {derivative ? (
            <Text size="sm" c="dimmed" mt={{ sm: 28 }}>
              Derivative legs count in lots.
            </Text>
          ) : (
            <NativeSelect
              label={`Leg ${n} quantity in`}
              data={[
                { value: 'units', label: 'Units (shares or contracts)' },
                { value: 'lots', label: 'Lots (× the lot size)' },
              ]}
              value={leg.quantity_unit}
              onChange={(e) =>
                onChange({ quantity_unit: e.currentTarget.value as LegDraft['quantity_unit'] })
              }
              error={error('quantity_unit')}
            />
          )}
        </SimpleGrid>
      </Stack>
    </Card>
  );
}
