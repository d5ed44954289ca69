/**
 * A source's on/off switch in its list row (a flow enabled, a scanner's live orders allowed): it
 * sends the change at once and shows the server's refusal under it.
 */
import { Stack, Switch, Text } from '@mantine/core';
import type { UseMutationResult } from '@tanstack/react-query';

export function SourceSwitch({
  label,
  checked,
  id,
  use,
}: {
  /** The switch's accessible name. */
  label: string;
  checked: boolean;
  /** The source's id, and the hook of the call that sets the switch (refreshing the list). */
  id: number;
  use: (id: number) => UseMutationResult<unknown, Error, boolean>;
}) {
  const change = use(id);
  return (
    <Stack gap={2}>
      <Switch
        aria-label={label}
        checked={checked}
        disabled={change.isPending}
        onChange={(e) => change.mutate(e.currentTarget.checked)}
      />
      {change.error && (
        <Text size="xs" c="red" role="alert">
          {change.error.message}
        </Text>
      )}
    </Stack>
  );
}
