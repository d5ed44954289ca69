import { Alert, Anchor } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { PAGE_PATHS } from '../../../src/modules/web/web-pages';
import { useDeskReady } from '../api/desk';
import { Loading } from './states';

/**
 * Shows its children only when the books can be read (docs/rules/web.md#desk-calls): in live mode
 * without a broker session it says so, with a link to /broker.
 */
export function DeskGate({ children }: { children: ReactNode }) {
  const { ready, pending, noBroker } = useDeskReady();
  if (pending) return <Loading label="Checking the broker connection…" />;
  if (noBroker || !ready)
    return (
      <Alert color="yellow" title="No broker connected" role="status">
        Live mode reads the books from your broker, and no broker session is active.{' '}
        <Anchor component={Link} to={PAGE_PATHS.broker}>
          Connect your broker
        </Anchor>{' '}
        or switch to Analyzer mode to use the sandbox.
      </Alert>
    );
  return <>{children}</>;
}
