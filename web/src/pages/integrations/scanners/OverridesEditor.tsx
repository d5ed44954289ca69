/**
 * The scanner form's overrides: a fixed number of shares for some symbols, one row each, added and
 * removed in place, with the server's messages of `overrides` and its sub-fields
 * (docs/rules/scanner.md#scanner-sizing).
 */
import { ActionIcon, Button, Group, NumberInput, Stack, Table, Text, TextInput } from '@mantine/core';
import '@mantine/core/styles/ActionIcon.css';
import { useState, type Dispatch, type SetStateAction } from 'react';

export interface OverrideRow {
  key: number;
  symbol: string;
  qty: number | string;
}

/** The rows are the form's state (it sends them); `error` is the server's message of the overrides. */
export function OverridesEditor({
  overrides,
  setOverrides,
  error,
}: {
  overrides: OverrideRow[];
  setOverrides: Dispatch<SetStateAction<OverrideRow[]>>;
  error: string | undefined;
}) {
  const [nextKey, setNextKey] = useState(overrides.length);
  const setRow = (key: number, patch: Partial<OverrideRow>) =>
    setOverrides((rows) => rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));

  return (
    <Stack gap={4}>
      <Text size="sm" fw={500}>
        Overrides (optional)
      </Text>
      <Text size="xs" c="dimmed">
        A fixed number of shares for some symbols, replacing the sizing above.
      </Text>
      {overrides.length > 0 && (
        <Table aria-label="Overrides" withRowBorders={false}>
          <Table.Tbody>
            {overrides.map((o, i) => (
              <Table.Tr key={o.key}>
                <Table.Td pl={0}>
                  <TextInput
                    label={`Override ${i + 1} symbol`}
                    placeholder="SBIN"
                    value={o.symbol}
                    onChange={(e) => setRow(o.key, { symbol: e.currentTarget.value })}
                  />
                </Table.Td>
                <Table.Td>
                  <NumberInput
                    label={`Override ${i + 1} quantity`}
                    allowDecimal={false}
                    clampBehavior="none"
                    value={o.qty}
                    onChange={(v) => setRow(o.key, { qty: v })}
                  />
                </Table.Td>
                <Table.Td pr={0} style={{ verticalAlign: 'bottom' }}>
                  <ActionIcon
                    variant="light"
                    color="red"
                    size="lg"
                    aria-label={`Remove override ${i + 1}`}
                    onClick={() => setOverrides((rows) => rows.filter((r) => r.key !== o.key))}
                  >
                    ×
                  </ActionIcon>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {error && (
        <Text size="sm" c="red" role="alert">
          {error}
        </Text>
      )}
      <Group>
        <Button
          size="xs"
          variant="light"
          onClick={() => {
            setOverrides((rows) => [...rows, { key: nextKey, symbol: '', qty: '' }]);
            setNextKey((k) => k + 1);
          }}
        >
          Add an override
        </Button>
      </Group>
    </Stack>
  );
}
