/**
 * The administrator's switch allowing or forbidding live orders for one scanner, with the server's
 * message when the change is refused.
 */
import { Stack, Switch, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../api/client';
import { BASE, KEY, type Scanner } from './scanner';

export function LiveSwitch({ scanner }: { scanner: Scanner }) {
  const queryClient = useQueryClient();
  const set = useMutation({
    mutationFn: (enabled: boolean) => api('POST', `${BASE}/${scanner.id}/live`, { enabled }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
  return (
    <Stack gap={2}>
      <Switch
        aria-label={`Allow live orders for ${scanner.name}`}
        checked={scanner.live_enabled}
        disabled={set.isPending}
        onChange={(e) => set.mutate(e.currentTarget.checked)}
      />
      {set.error && (
        <Text size="xs" c="red" role="alert">
          {set.error.message}
        </Text>
      )}
    </Stack>
  );
}
