/**
 * `/admin`: the market calendar's counts and the way to each administration page
 * (docs/rules/web.md#field-messages: loading and error states in words).
 */
import { Anchor, Card, Container, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { PAGE_PATHS } from '../../../../src/modules/web/web-pages';
import { ErrorState, Loading } from '../../components/states';
import { useAdminStats } from '../../features/admin/api/calendar';
import { formatCount } from '../../format-number';

const LINKS = [
  {
    to: PAGE_PATHS.adminUsers,
    label: 'Users',
    text: 'Accounts: roles, passwords, two-factor, disable, delete.',
  },
  {
    to: PAGE_PATHS.adminBrokers,
    label: 'Broker apps',
    text: 'The broker apps users choose from: keys, secrets, redirect URLs.',
  },
  {
    to: PAGE_PATHS.adminFreeze,
    label: 'Freeze quantities',
    text: 'Largest quantity of one F&O order; CSV upload.',
  },
  {
    to: PAGE_PATHS.adminHolidays,
    label: 'Market holidays',
    text: 'Closed exchanges and special sessions, by year.',
  },
  {
    to: PAGE_PATHS.adminTimings,
    label: 'Market timings',
    text: 'Session hours of each exchange; check a date.',
  },
  { to: PAGE_PATHS.adminErrors, label: 'Error log', text: 'Server and browser errors, grouped, with stats.' },
  {
    to: PAGE_PATHS.adminSystem,
    label: 'System',
    text: 'The install’s snapshot, diagnostics and the report.',
  },
  {
    to: PAGE_PATHS.adminAgents,
    label: 'Agents',
    text: 'Remote AI agents: clients, settings, kill switch, audit.',
  },
] as const;

function Count({ label, value, to }: { label: string; value: number; to: string }) {
  return (
    <Card withBorder padding="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Anchor component={Link} to={to} size="xl" fw={700} aria-label={`${label}: ${formatCount(value)}`}>
        {formatCount(value)}
      </Anchor>
    </Card>
  );
}

export default function AdminHomePage() {
  const stats = useAdminStats();
  return (
    <Container size="lg">
      <Title order={1} size="h2" mb="md">
        Administration
      </Title>
      <Stack gap="lg">
        {stats.isPending && <Loading />}
        {stats.isError && <ErrorState error={stats.error} />}
        {stats.data && (
          <SimpleGrid cols={{ base: 1, xs: 3 }}>
            <Count
              label="Freeze quantities"
              value={stats.data.data.freeze_count}
              to={PAGE_PATHS.adminFreeze}
            />
            <Count label="Holidays" value={stats.data.data.holiday_count} to={PAGE_PATHS.adminHolidays} />
            <Count
              label="Exchange timings"
              value={stats.data.data.timing_count}
              to={PAGE_PATHS.adminTimings}
            />
          </SimpleGrid>
        )}
        <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }}>
          {LINKS.map((l) => (
            <Card key={l.to} withBorder padding="md">
              <Anchor component={Link} to={l.to} fw={600}>
                {l.label}
              </Anchor>
              <Text size="sm" c="dimmed">
                {l.text}
              </Text>
            </Card>
          ))}
        </SimpleGrid>
      </Stack>
    </Container>
  );
}
