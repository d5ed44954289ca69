import { Alert, AppShell, Badge, Burger, Button, Group, NavLink, Text, Tooltip } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { NEGOTIATED_PAGE_PATHS, PAGE_PATHS } from '../../../src/modules/web/web-pages';
import { SESSION_KEY, useMode, type User } from '../api/auth';
import { api, forgetCsrfToken } from '../api/client';
import { reportErrorsAs } from '../report-errors';

interface NavItem {
  label: string;
  to: string;
  admin?: boolean;
}

const NAV: NavItem[] = [
  { label: 'Dashboard', to: PAGE_PATHS.dashboard },
  { label: 'Scanners', to: PAGE_PATHS.scanners },
  { label: 'Flows', to: PAGE_PATHS.flows },
  { label: 'Security', to: PAGE_PATHS.securityLogs, admin: true },
  { label: 'Traffic', to: PAGE_PATHS.trafficLogs, admin: true },
  { label: 'Latency', to: PAGE_PATHS.latencyLogs, admin: true },
  { label: 'Administration', to: PAGE_PATHS.admin, admin: true },
  { label: 'Agents', to: PAGE_PATHS.adminAgents, admin: true },
  { label: 'Profile', to: PAGE_PATHS.profile },
  { label: 'API key', to: NEGOTIATED_PAGE_PATHS.apikey },
];

/** The mode in the header (docs/rules/web.md#mode-always-visible). */
function ModeBadge({ analyze }: { analyze: boolean | undefined }) {
  if (analyze === undefined) return null;
  return analyze ? (
    <Badge color="orange" variant="filled" size="lg" aria-label="Mode: Analyzer">
      Analyzer
    </Badge>
  ) : (
    <Badge color="green" variant="light" size="lg" aria-label="Mode: Live">
      Live
    </Badge>
  );
}

/** Header (mode, user, sign out), navigation, and the page. */
export function AppLayout({ user, children }: { user: User; children: ReactNode }) {
  const [opened, { toggle, close }] = useDisclosure();
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const mode = useMode(true);
  const analyze = mode.data?.analyze_mode;
  const [signingOut, setSigningOut] = useState(false);
  useEffect(() => reportErrorsAs(user.is_admin), [user.is_admin]);

  const signOut = async () => {
    setSigningOut(true);
    try {
      await api('POST', '/auth/logout');
    } catch {
      // Already gone (expired): signed out either way.
    }
    forgetCsrfToken();
    reportErrorsAs(false);
    queryClient.clear();
    queryClient.setQueryData(SESSION_KEY, null);
    void navigate('/login', { replace: true });
  };

  return (
    <AppShell
      header={{ height: analyze ? 96 : 60 }}
      navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        {analyze && (
          <Alert
            color="orange"
            variant="filled"
            radius={0}
            py={6}
            role="status"
            data-testid="analyzer-banner"
          >
            Analyzer mode is on: orders go to the sandbox, not to the broker.
          </Alert>
        )}
        <Group h={60} px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger
              opened={opened}
              onClick={toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label="Toggle navigation"
            />
            <Text fw={700} size="lg" component={Link} to="/">
              algodesk
            </Text>
            <ModeBadge analyze={analyze} />
          </Group>
          <Group gap="sm" wrap="nowrap">
            <Tooltip label={user.is_admin ? 'Administrator' : 'User'}>
              <Text size="sm" data-testid="signed-in-user">
                {user.username}
              </Text>
            </Tooltip>
            <Button variant="default" size="xs" onClick={() => void signOut()} loading={signingOut}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Main navigation">
        {NAV.filter((item) => !item.admin || user.is_admin).map((item) => (
          <NavLink
            key={item.to}
            component={Link}
            to={item.to}
            label={item.label}
            active={location.pathname === item.to}
            onClick={close}
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>{children}</AppShell.Main>
    </AppShell>
  );
}
