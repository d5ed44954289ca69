import { Anchor, Card, Container, SimpleGrid, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { PAGE_PATHS } from '../../../src/modules/web/web-pages';
import { useSession } from '../api/auth';
import { api } from '../api/client';
import { ErrorState, Loading } from '../components/states';

interface Stats {
  total_bans: number;
  permanent_bans: number;
  temporary_bans: number;
  suspicious_ips: number;
  near_threshold_ips: number;
}

function Figure({ label, value }: { label: string; value: number }) {
  return (
    <Card withBorder padding="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="xl" fw={700}>
        {value}
      </Text>
    </Card>
  );
}

function SecurityFigures() {
  const stats = useQuery({
    queryKey: ['security', 'stats'],
    queryFn: () => api<Stats>('GET', '/security/stats'),
  });
  if (stats.isPending) return <Loading />;
  if (stats.isError) return <ErrorState error={stats.error} />;
  return (
    <SimpleGrid cols={{ base: 2, sm: 4 }}>
      <Figure label="Active bans" value={stats.data.total_bans} />
      <Figure label="Permanent bans" value={stats.data.permanent_bans} />
      <Figure label="Suspicious addresses" value={stats.data.suspicious_ips} />
      <Figure label="Near a threshold" value={stats.data.near_threshold_ips} />
    </SimpleGrid>
  );
}

/** The dashboard: who is signed in, and for the administrator the shield's figures and links. */
export default function HomePage() {
  const { data: user } = useSession();
  return (
    <Container size="lg">
      <Title order={1} size="h2" mb="xs">
        Dashboard
      </Title>
      <Text c="dimmed" mb="lg">
        Signed in as {user?.username}
        {user?.is_admin ? ' (administrator)' : ''}.
      </Text>
      {user?.is_admin && (
        <>
          <Title order={2} size="h4" mb="sm">
            Security
          </Title>
          <SecurityFigures />
          <Text mt="sm">
            <Anchor component={Link} to={PAGE_PATHS.securityLogs}>
              Bans, trackers and automatic-ban settings
            </Anchor>
          </Text>
        </>
      )}
    </Container>
  );
}
