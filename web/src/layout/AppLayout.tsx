/**
 * The signed-in pages' frame: the header (brand, mode, user, sign out), the navigation — a
 * sidebar on a wide screen, a drawer behind the burger on a phone — and the page
 * (docs/rules/web.md#mode-always-visible, #phone-width).
 */
import {
  Alert,
  AppShell,
  Badge,
  Burger,
  Button,
  Group,
  NavLink,
  ScrollArea,
  Text,
  Tooltip,
} from '@mantine/core';
import { useDisclosure, useElementSize, useWindowEvent } from '@mantine/hooks';
import { onlineManager, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { NEGOTIATED_PAGE_PATHS, optionChainPagePath, PAGE_PATHS } from '../../../src/modules/web/web-pages';
import { SESSION_KEY, useMode, type User } from '../api/auth';
import { abandonReads, api, forgetCsrfToken } from '../api/client';
import { closeLive, liveSignedOut } from '../api/live';
import { reportErrorsAs } from '../report-errors';
import { TicketProvider } from '../components/ticket/TicketProvider';
import logo from '../favicon.svg';
import { BrokerSessionBanner } from './BrokerSessionBanner';
import { ThemeSwitch } from './ThemeSwitch';
import classes from './AppLayout.module.css';

interface NavItem {
  label: string;
  to: string;
  /** A page with a parameter: the entry is active on any path under this prefix. */
  prefix?: string;
}

/** The navigation, by what a person comes to do; the administrator's section only for them. */
const NAV: { section: string; admin?: boolean; items: NavItem[] }[] = [
  {
    section: 'Trading',
    items: [
      { label: 'Dashboard', to: PAGE_PATHS.dashboard },
      { label: 'Market watch', to: PAGE_PATHS.watchlist },
      { label: 'Option chain', to: optionChainPagePath('NIFTY'), prefix: '/optionchain/' },
      { label: 'Orders', to: PAGE_PATHS.orderbook },
      { label: 'GTT orders', to: PAGE_PATHS.gtt },
      { label: 'Trades', to: PAGE_PATHS.tradebook },
      { label: 'Positions', to: PAGE_PATHS.positions },
      { label: 'Holdings', to: PAGE_PATHS.holdings },
      { label: 'Action Center', to: PAGE_PATHS.actionCenter },
      { label: 'Search', to: PAGE_PATHS.search },
    ],
  },
  {
    section: 'Automation',
    items: [
      { label: 'Strategies', to: PAGE_PATHS.strategies },
      { label: 'Scanners', to: PAGE_PATHS.scanners },
      { label: 'Flows', to: PAGE_PATHS.flows },
    ],
  },
  {
    section: 'Account',
    items: [
      { label: 'Analyzer', to: PAGE_PATHS.analyzer },
      { label: 'Broker', to: PAGE_PATHS.broker },
      { label: 'Master contract', to: PAGE_PATHS.masterContract },
      { label: 'API key', to: NEGOTIATED_PAGE_PATHS.apikey },
      { label: 'Profile', to: PAGE_PATHS.profile },
    ],
  },
  {
    section: 'Administration',
    admin: true,
    items: [
      { label: 'Security', to: PAGE_PATHS.securityLogs },
      { label: 'Traffic', to: PAGE_PATHS.trafficLogs },
      { label: 'Latency', to: PAGE_PATHS.latencyLogs },
      { label: 'Users', to: PAGE_PATHS.adminUsers },
      { label: 'Broker apps', to: PAGE_PATHS.adminBrokers },
      { label: 'Administration', to: PAGE_PATHS.admin },
      { label: 'Agents', to: PAGE_PATHS.adminAgents },
    ],
  },
];

/** The mode in the header (docs/rules/web.md#mode-always-visible). */
function ModeBadge({ analyze }: { analyze: boolean | undefined }) {
  if (analyze === undefined) return null;
  return analyze ? (
    <Badge color="orange" variant="filled" size="lg" aria-label="Mode: Analyzer" style={{ flexShrink: 0 }}>
      Analyzer
    </Badge>
  ) : (
    <Badge color="green" variant="light" size="lg" aria-label="Mode: Live" style={{ flexShrink: 0 }}>
      Live
    </Badge>
  );
}

/** Whether a key press is typing into a field (a shortcut must not take it). */
const typing = (t: EventTarget | null) =>
  t instanceof HTMLElement && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName));

/** The header's row under the analyzer banner. */
const HEADER_ROW = 60;

/** Header (mode, user, sign out), navigation, and the page. */
export function AppLayout({ user, children }: { user: User; children: ReactNode }) {
  const [opened, { toggle, close }] = useDisclosure();
  const burger = useRef<HTMLButtonElement>(null);
  const nav = useRef<HTMLDivElement>(null);
  // The banner wraps to two lines on a phone: the header is as tall as it is, measured.
  const banner = useElementSize();
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const mode = useMode(true);
  const analyze = mode.data?.analyze_mode;
  const [signingOut, setSigningOut] = useState(false);
  useEffect(() => reportErrorsAs(user.is_admin), [user.is_admin]);
  // docs/rules/web.md#phone-width: Escape closes the drawer and gives the focus back to the burger.
  useWindowEvent('keydown', (e) => {
    if (e.key !== 'Escape' || !opened) return;
    close();
    burger.current?.focus();
  });
  // docs/rules/web.md#keyboard: `/` (not typed into a field) focuses the page's search box, or
  // opens /search on a page without one.
  useWindowEvent('keydown', (e) => {
    if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    e.preventDefault();
    const box = document.querySelector<HTMLInputElement>('[data-hotkey-search]:not([disabled])');
    if (box) box.focus();
    else void navigate(PAGE_PATHS.search);
  });
  // The drawer opened takes the focus to its first entry, so a keyboard is in it at once.
  useEffect(() => {
    if (opened) nav.current?.querySelector<HTMLElement>('a[href]')?.focus();
  }, [opened]);
  const bannerHeight = analyze ? banner.height || 36 : 0;

  const signOut = async () => {
    setSigningOut(true);
    // docs/rules/web.md#sign-out: the queries asked from now on wait (react-query holds them
    // while "offline"), and those on their way are cancelled and abandoned.
    onlineManager.setOnline(false);
    try {
      // Before the logout, and before a desk page shown meanwhile could open one: a handshake
      // reaching the server after the logout would be refused.
      await closeLive();
      await queryClient.cancelQueries();
      abandonReads();
      try {
        await api('POST', '/auth/logout');
      } catch {
        // Already gone (expired): signed out either way.
      }
      forgetCsrfToken();
      reportErrorsAs(false);
      // No session first: the guard takes the page (and its queries) away. Only then is the cache
      // dropped — a page still shown would ask the server again, without a session, at once.
      queryClient.setQueryData(SESSION_KEY, null);
      await new Promise((resolve) => setTimeout(resolve, 0));
      await queryClient.cancelQueries();
      queryClient.clear();
      queryClient.setQueryData(SESSION_KEY, null);
    } finally {
      liveSignedOut();
      // The sign-in page's own queries (held meanwhile) go now.
      onlineManager.setOnline(true);
    }
    void navigate('/login', { replace: true });
  };

  return (
    <AppShell
      header={{ height: HEADER_ROW + bannerHeight }}
      navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding={{ base: 'sm', sm: 'md' }}
    >
      <AppShell.Header>
        {analyze && (
          <div ref={banner.ref}>
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
          </div>
        )}
        <Group h={HEADER_ROW} px={{ base: 'sm', sm: 'md' }} justify="space-between" wrap="nowrap" gap="xs">
          <Group gap="sm" wrap="nowrap" miw={0}>
            <Burger
              ref={burger}
              opened={opened}
              onClick={toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label="Toggle navigation"
              aria-expanded={opened}
              aria-controls="main-navigation"
            />
            <Link to="/" className={classes.brand}>
              <img src={logo} alt="" className={classes.logo} />
              <span className={classes.brandWord}>algodesk</span>
            </Link>
            <ModeBadge analyze={analyze} />
          </Group>
          <Group gap="sm" wrap="nowrap" style={{ flexShrink: 0 }}>
            <ThemeSwitch visibleFrom="sm" />
            <Tooltip label={user.is_admin ? 'Administrator' : 'User'}>
              <Text size="sm" data-testid="signed-in-user" visibleFrom="xs">
                {user.username}
              </Text>
            </Tooltip>
            <Button variant="default" size="xs" onClick={() => void signOut()} loading={signingOut}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Main navigation" id="main-navigation" ref={nav}>
        <AppShell.Section grow component={ScrollArea} type="auto">
          {NAV.filter((group) => !group.admin || user.is_admin).map((group) => (
            <div key={group.section}>
              <Text c="dimmed" tt="uppercase" fw={700} className={classes.section}>
                {group.section}
              </Text>
              {group.items.map((item) => (
                <NavLink
                  key={item.to}
                  component={Link}
                  to={item.to}
                  label={item.label}
                  active={
                    location.pathname === item.to ||
                    (item.prefix !== undefined && location.pathname.startsWith(item.prefix))
                  }
                  onClick={close}
                  classNames={{ root: classes.navLink, body: classes.navBody }}
                />
              ))}
            </div>
          ))}
        </AppShell.Section>
        {/* On a phone the header has no room: the theme is switched from the drawer. */}
        <AppShell.Section hiddenFrom="sm" pt="xs">
          <ThemeSwitch withLabel />
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main>
        <TicketProvider>
          <BrokerSessionBanner />
          {children}
        </TicketProvider>
      </AppShell.Main>
    </AppShell>
  );
}
