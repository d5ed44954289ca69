/**
 * The live GTT's confirmation (docs/rules/web.md#gtt-page): before a GTT goes to the broker, the
 * form is replaced by what it will place when its trigger is reached — side, quantity, symbol,
 * exchange, product, price type — with the broker's refusal, if any, and "Back" to the form.
 */
import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import type { Action } from '../../../../../src/domain/orders';
import { num } from '../../../components/ticket/ticket-fields';
import { formatCount } from '../../../format-number';
import type { GttFormState } from './gtt-model';

export const sideColor = (a: Action) =>
  a === 'BUY' ? 'var(--mantine-color-teal-8)' : 'var(--mantine-color-red-8)';

export function GttConfirm({
  s,
  fixed,
  error,
  pending,
  onSend,
  onBack,
}: {
  s: GttFormState;
  /** A modification (not a new GTT). */
  fixed: boolean;
  error: Error | null;
  pending: boolean;
  onSend: () => void;
  onBack: () => void;
}) {
  return (
    <Stack>
      <Text>
        Send this GTT to your broker? It places a real{' '}
        <span style={{ color: sideColor(s.action), fontWeight: 600 }}>{s.action}</span> order of{' '}
        {formatCount(num(s.quantity))} <strong>{s.symbol.trim().toUpperCase()}</strong> ({s.exchange},{' '}
        {s.product}, {s.pricetype}) when its trigger is reached.
      </Text>
      {error ? (
        <Alert color="red" title={fixed ? 'GTT not modified' : 'GTT not placed'} role="alert">
          {error.message}
        </Alert>
      ) : null}
      <Group>
        <Button color="red" loading={pending} onClick={onSend}>
          {fixed ? 'Modify at the broker' : 'Send to the broker'}
        </Button>
        <Button variant="default" onClick={onBack}>
          Back
        </Button>
      </Group>
    </Stack>
  );
}
