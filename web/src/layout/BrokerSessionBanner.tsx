/**
 * A lapsed broker session said on every page (docs/rules/web.md#account-pages): when the user's
 * broker session has expired (Kite's at 06:00 IST, Angel One's at midnight, a token's own
 * validity), each signed-in page but `/broker` itself shows since when, and the way back to the
 * broker login — a trader is never left with live calls failing and no reason given.
 */
import { Alert, Button, Group, Text } from '@mantine/core';
import { Link, useLocation } from 'react-router';
import { PAGE_PATHS } from '../../../src/modules/web/web-pages';
import { useBrokerStatus } from '../features/account/api/broker';
import { brokerLabel, fromNow, when } from '../pages/account/format';

export function BrokerSessionBanner() {
  const { pathname } = useLocation();
  const status = useBrokerStatus();
  const s = status.data;
  if (!s || s.state !== 'expired' || !s.session || pathname === PAGE_PATHS.broker) return null;
  const broker = brokerLabel(s.session.broker);
  return (
    <Alert color="orange" role="status" mb="md" title={`Your ${broker} session has expired`}>
      <Group justify="space-between" gap="xs">
        <Text size="sm">
          {s.session.expires_at
            ? `It lapsed ${when(s.session.expires_at)} (${fromNow(s.session.expires_at)}). `
            : ''}
          Live orders, books and quotes need a new login.
        </Text>
        <Button component={Link} to={PAGE_PATHS.broker} size="xs" color="orange">
          Log in to {broker}
        </Button>
      </Group>
    </Alert>
  );
}
