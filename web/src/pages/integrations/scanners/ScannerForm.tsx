/**
 * The form creating or editing a scanner (docs/rules/scanner.md#scanner-configuration): its action,
 * exchange and product, sizing by shares or rupees with per-symbol overrides, trading window and
 * square-off, most symbols per alert, mode and whether it is enabled.
 */
import {
  Button,
  Group,
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
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, fieldError } from '../../../api/client';
import { ErrorState } from '../../../components/states';
import { allShown, prefixError } from '../common';
import { OverridesEditor, type OverrideRow } from './OverridesEditor';
import { BASE, KEY, type Issued, type Scanner } from './scanner';

const ACTIONS = ['BUY', 'SELL', 'SHORT', 'COVER', 'FROM_SCAN_NAME'];
const ACTION_LABELS: Record<string, string> = {
  BUY: 'BUY (enter long)',
  SELL: 'SELL (exit long)',
  SHORT: 'SHORT (enter short)',
  COVER: 'COVER (exit short)',
  FROM_SCAN_NAME: 'From the scan name',
};
const FIELDS = [
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
];

/** Create (no `scanner`) or edit a scanner; the server's messages under the fields they name. */
export function ScannerForm({
  scanner,
  onSaved,
  onCancel,
}: {
  scanner?: Scanner;
  onSaved: (issued?: Issued & { name: string }) => void;
  onCancel: () => void;
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(scanner?.name ?? '');
  const [action, setAction] = useState(scanner?.action ?? 'BUY');
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
  const save = useMutation({
    mutationFn: async () => {
      const body = {
        name: name.trim(),
        action,
        exchange,
        product,
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
        mode,
        enabled,
      };
      if (scanner) {
        await api<{ data: Scanner }>('PUT', `${BASE}/${scanner.id}`, body);
        return undefined;
      }
      const made = await api<{ data: Scanner } & Issued>('POST', '/scanner/api/scanners', body);
      return { name: made.data.name, webhook_id: made.webhook_id, webhook_url: made.webhook_url };
    },
    onSuccess: async (issued) => {
      await queryClient.invalidateQueries({ queryKey: KEY });
      onSaved(issued);
    },
  });
  const err = save.error;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };

  return (
    <form onSubmit={submit} noValidate aria-label={scanner ? `Edit scanner ${scanner.name}` : 'New scanner'}>
      <Stack>
        {err && !allShown(err, FIELDS) && <ErrorState error={err} title="Not saved" />}
        <TextInput
          label="Name"
          required
          withAsterisk={false}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={fieldError(err, 'name')}
          maxLength={100}
        />
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <NativeSelect
            label="Action"
            data={ACTIONS.map((a) => ({ value: a, label: ACTION_LABELS[a]! }))}
            value={action}
            onChange={(e) => setAction(e.currentTarget.value)}
            error={fieldError(err, 'action')}
          />
          <NativeSelect
            label="Exchange"
            data={['NSE', 'BSE']}
            value={exchange}
            onChange={(e) => setExchange(e.currentTarget.value)}
            error={fieldError(err, 'exchange')}
          />
          <NativeSelect
            label="Product"
            data={[
              { value: 'MIS', label: 'MIS (intraday)' },
              { value: 'CNC', label: 'CNC (delivery)' },
            ]}
            value={product}
            onChange={(e) => setProduct(e.currentTarget.value)}
            error={fieldError(err, 'product')}
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
              value={quantity}
              onChange={setQuantity}
              error={fieldError(err, 'quantity')}
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
            value={windowStart}
            onChange={(e) => setWindowStart(e.currentTarget.value)}
            error={fieldError(err, 'window_start')}
          />
          <TextInput
            label="Window end (IST)"
            placeholder="HH:MM"
            value={windowEnd}
            onChange={(e) => setWindowEnd(e.currentTarget.value)}
            error={fieldError(err, 'window_end')}
          />
          {product === 'MIS' && (
            <TextInput
              label="Square-off (IST)"
              placeholder="HH:MM"
              value={squareoff}
              onChange={(e) => setSquareoff(e.currentTarget.value)}
              error={fieldError(err, 'squareoff_time')}
            />
          )}
        </SimpleGrid>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <NumberInput
            label="Most symbols per alert"
            allowDecimal={false}
            clampBehavior="none"
            value={maxSymbols}
            onChange={setMaxSymbols}
            error={fieldError(err, 'max_symbols')}
          />
          <NativeSelect
            label="Mode"
            data={[
              { value: 'analyze', label: 'Analyze (sandbox)' },
              { value: 'live', label: 'Live (broker)' },
            ]}
            value={mode}
            onChange={(e) => setMode(e.currentTarget.value)}
            error={fieldError(err, 'mode')}
            description={
              mode === 'live' ? 'Live alerts are refused until an administrator allows them.' : undefined
            }
          />
        </SimpleGrid>
        <Switch
          label="Enabled"
          checked={enabled}
          onChange={(e) => setEnabled(e.currentTarget.checked)}
          error={fieldError(err, 'enabled')}
        />
        <Group>
          <Button type="submit" loading={save.isPending}>
            {scanner ? 'Save changes' : 'Create scanner'}
          </Button>
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
