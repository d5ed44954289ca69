/** The window of a monitoring page: the last hour, 6 hours, 24 hours or 7 days (server's clock). */
import '@mantine/core/styles/SegmentedControl.css';
import '@mantine/core/styles/FloatingIndicator.css';
import { SegmentedControl, Stack, Text } from '@mantine/core';
import { useId } from 'react';
import { WINDOWS } from './format';

export function WindowPicker({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  const id = useId();
  return (
    <Stack gap={4}>
      <Text id={id} size="sm" fw={500}>
        Window
      </Text>
      <SegmentedControl
        aria-labelledby={id}
        data={WINDOWS.map((w) => ({ value: w.value, label: w.label }))}
        value={value}
        onChange={onChange}
      />
    </Stack>
  );
}

/** The label of a window value ("24 hours"). */
export const windowLabel = (hours: string) =>
  WINDOWS.find((w) => w.value === hours)?.label ?? `${hours} hours`;
