/**
 * The analyzer's "Equity" card (docs/rules/web.md#account-pages, docs/rules/sandbox.md#daily-equity):
 * the sandbox account's days since its last reset, charted, refreshed with the account (its query
 * sits under the analyzer's key, which every live order event and a reset refresh).
 */
import { Card, Text, Title, useComputedColorScheme } from '@mantine/core';
import { useSandboxEquity } from '../../../features/account/api/sandbox';
import { Empty, ErrorState, Loading } from '../../../components/states';
import { EquityChart } from './EquityChart';

export function EquityCard({ refetchInterval }: { refetchInterval: number | false }) {
  const equity = useSandboxEquity(refetchInterval);
  const scheme = useComputedColorScheme('light');
  const days = equity.data?.data;
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        Equity
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        The account at the end of each day since its last reset (today’s as it is now): available funds, used
        margin, holdings and open positions at the latest prices.
      </Text>
      {equity.isPending && <Loading label="Loading the equity…" />}
      {equity.isError && <ErrorState error={equity.error} title="The equity could not be read" />}
      {days && days.length === 0 && <Empty>No day recorded yet.</Empty>}
      {days && days.length > 0 && (
        <>
          <EquityChart days={days} scheme={scheme} />
          {days.length === 1 && (
            <Text size="sm" c="dimmed" mt="xs" data-testid="equity-one-day">
              Only today so far: a point is added for each day the account is recorded.
            </Text>
          )}
        </>
      )}
    </Card>
  );
}
