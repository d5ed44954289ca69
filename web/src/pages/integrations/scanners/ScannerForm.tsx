/**
 * The form creating or editing a scanner (docs/rules/scanner.md#scanner-configuration): its action,
 * exchange and product, sizing by shares or rupees with per-symbol overrides, trading window and
 * square-off, most symbols per alert, mode and whether it is enabled.
 */
import {
  NativeSelect,
  NumberInput,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
} from '@mantine/core';
import '@mantine/core/styles/SegmentedControl.css';
import '@mantine/core/styles/FloatingIndicator.css';
import { useState } from 'react';
import { fieldError } from '../../../api/client';
import {
  binder,
  prefixError,
  SourceForm,
  type SourceFormKind,
  type SourceFormProps,
} from '../../../components/webhooks/SourceForm';
import { useSaveScanner } from '../../../features/integrations/api/scanners';
import type { Scanner, ScannerInput, ScannerIssued } from '../../../features/integrations/api/types';
import { OverridesEditor, type OverrideRow } from './OverridesEditor';

const ACTIONS = ['BUY', 'SELL', 'SHORT', 'COVER', 'FROM_SCAN_NAME'];
const ACTION_LABELS: Record<string, string> = {
  BUY: 'BUY (enter long)',
  SELL: 'SELL (exit long)',
  SHORT: 'SHORT (enter short)',
  COVER: 'COVER (exit short)',
  FROM_SCAN_NAME: 'From the scan name',
};
const SCANNER: SourceFormKind = {
  noun: 'scanner',
  fields: [
    'name',
    'action',
    'exchange',
    'product',
    'quantity',
    'capital',
    'overrides',
    'window_start',
    'window_end',
    'squareoff_time',
    'max_symbols',
    'mode',
    'enabled',
  ],
};

/** Create (no `source`) or edit a scanner; the server's messages under the fields they name. */
export function ScannerForm({ source: scanner, onSaved, onCancel }: SourceFormProps<Scanner, ScannerIssued>) {
  const [action, setAction] = useState<string>(scanner?.action ?? 'BUY');
  const [exchange, setExchange] = useState(scanner?.exchange ?? 'NSE');
  const [product, setProduct] = useState(scanner?.product ?? 'MIS');
  const [by, setBy] = useState<'quantity' | 'capital'>(scanner?.capital != null ? 'capital' : 'quantity');
  const [quantity, setQuantity] = useState<number | string>(scanner?.quantity ?? '');
  const [capital, setCapital] = useState<number | string>(scanner?.capital ?? '');
  const [overrides, setOverrides] = useState<OverrideRow[]>(
    Object.entries(scanner?.overrides ?? {}).map(([symbol, qty], key) => ({ key, symbol, qty })),
  );
  const [windowStart, setWindowStart] = useState(scanner?.window_start ?? '09:15');
  const [windowEnd, setWindowEnd] = useState(scanner?.window_end ?? '15:15');
  const [squareoff, setSquareoff] = useState(scanner?.squareoff_time ?? '15:15');
  const [maxSymbols, setMaxSymbols] = useState<number | string>(scanner?.max_symbols ?? 10);
  const [mode, setMode] = useState<string>(scanner?.mode ?? 'analyze');
  const [enabled, setEnabled] = useState(scanner?.enabled ?? true);

  const num = (v: number | string) => (v === '' ? null : Number(v));
  const save = useSaveScanner(scanner?.id);
  const bind = binder(save.error);
  const body = (name: string): ScannerInput => ({
    name,
    // The selects offer only the values the schema takes.
    action: action as ScannerInput['action'],
    exchange: exchange as ScannerInput['exchange'],
    product: product as ScannerInput['product'],
    quantity: by === 'quantity' ? num(quantity) : null,
    capital: by === 'capital' ? num(capital) : null,
    overrides: Object.fromEntries(
      overrides
        .filter((o) => o.symbol.trim() !== '' || o.qty !== '')
        .map((o) => [o.symbol.trim().toUpperCase(), Number(o.qty)]),
    ),
    window_start: windowStart.trim(),
    window_end: windowEnd.trim(),
    squareoff_time: product === 'MIS' && squareoff.trim() !== '' ? squareoff.trim() : null,
    max_symbols: Number(maxSymbols),
    mode: mode as ScannerInput['mode'],
    enabled,
  });
  const err = save.error;

  return (
    <SourceForm
      kind={SCANNER}
      source={scanner}
      save={save}
      onSubmit={(name) => save.mutate(body(name), { onSuccess: onSaved })}
      onCancel={onCancel}
    >
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <NativeSelect
          label="Action"
          data={ACTIONS.map((a) => ({ value: a, label: ACTION_LABELS[a]! }))}
          {...bind.text('action', action, setAction)}
        />
        <NativeSelect
          label="Exchange"
          data={['NSE', 'BSE']}
          {...bind.text('exchange', exchange, setExchange)}
        />
        <NativeSelect
          label="Product"
          data={[
            { value: 'MIS', label: 'MIS (intraday)' },
            { value: 'CNC', label: 'CNC (delivery)' },
          ]}
          {...bind.text('product', product, setProduct)}
        />
      </SimpleGrid>
      <Stack gap={4}>
        <Text size="sm" fw={500} id="sizing-label">
          Sizing
        </Text>
        <SegmentedControl
          aria-labelledby="sizing-label"
          value={by}
          onChange={(v) => setBy(v as 'quantity' | 'capital')}
          data={[
            { value: 'quantity', label: 'Shares per symbol' },
            { value: 'capital', label: 'Rupees per symbol' },
          ]}
        />
        {by === 'quantity' ? (
          <NumberInput
            label="Quantity (shares per symbol)"
            allowDecimal={false}
            clampBehavior="none"
            {...bind.number('quantity', quantity, setQuantity)}
          />
        ) : (
          <NumberInput
            label="Capital (rupees per symbol)"
            description="Each symbol gets floor(capital ÷ trigger price) shares"
            clampBehavior="none"
            thousandSeparator=","
            value={capital}
            onChange={setCapital}
            error={fieldError(err, 'capital') ?? fieldError(err, 'quantity')}
          />
        )}
      </Stack>
      <OverridesEditor
        overrides={overrides}
        setOverrides={setOverrides}
        error={prefixError(err, 'overrides')}
      />
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <TextInput
          label="Window start (IST)"
          placeholder="HH:MM"
          {...bind.text('window_start', windowStart, setWindowStart)}
        />
        <TextInput
          label="Window end (IST)"
          placeholder="HH:MM"
          {...bind.text('window_end', windowEnd, setWindowEnd)}
        />
        {product === 'MIS' && (
          <TextInput
            label="Square-off (IST)"
            placeholder="HH:MM"
            {...bind.text('squareoff_time', squareoff, setSquareoff)}
          />
        )}
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <NumberInput
          label="Most symbols per alert"
          allowDecimal={false}
          clampBehavior="none"
          {...bind.number('max_symbols', maxSymbols, setMaxSymbols)}
        />
        <NativeSelect
          label="Mode"
          data={[
            { value: 'analyze', label: 'Analyze (sandbox)' },
            { value: 'live', label: 'Live (broker)' },
          ]}
          description={
            mode === 'live' ? 'Live alerts are refused until an administrator allows them.' : undefined
          }
          {...bind.text('mode', mode, setMode)}
        />
      </SimpleGrid>
      <Switch label="Enabled" {...bind.check('enabled', enabled, setEnabled)} />
    </SourceForm>
  );
}
