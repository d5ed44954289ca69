import { Alert, Container } from '@mantine/core';
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useSession, useSetupStatus } from '../api/auth';
import { ErrorState, Loading } from '../components/states';
import { AppLayout } from './AppLayout';

/**
 * The signed-in part of the console (docs/rules/web.md#session-expiry): no user yet → /setup;
 * no live session → /login with the page to come back to; else the layout around the page.
 */
export function RequireSession({ children }: { children: ReactNode }) {
  const location = useLocation();
  const setup = useSetupStatus();
  const session = useSession();
  if (setup.isPending || session.isPending) return <Loading label="Checking your session…" />;
  if (setup.data?.needs_setup) return <Navigate to="/setup" replace />;
  if (session.isError) return <ErrorState error={session.error} title="The server could not be reached" />;
  if (session.data === null) {
    const here = location.pathname + location.search;
    const next = here === '/' ? '' : `?next=${encodeURIComponent(here)}`;
    return <Navigate to={`/login${next}`} replace />;
  }
  return <AppLayout user={session.data}>{children}</AppLayout>;
}

/** Administrator pages: anyone else sees a clear refusal, not a broken page. */
export function AdminOnly({ children }: { children: ReactNode }) {
  const session = useSession();
  if (session.data?.is_admin) return <>{children}</>;
  return (
    <Container size="sm" py="xl">
      <Alert color="red" title="Not allowed" role="alert">
        This page is for the administrator. Ask them if you need something here.
      </Alert>
    </Container>
  );
}
