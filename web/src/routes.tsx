/**
 * The console's routes: every path is one of the server's page paths (web-pages.ts, read by both
 * sides), each page its own chunk loaded on first visit (docs/rules/web.md#first-load-budget).
 */
import { lazy, Suspense, type ComponentType, type ReactNode } from 'react';
import { createBrowserRouter, Outlet } from 'react-router';
import { PAGE_PATHS } from '../../src/modules/web/web-pages';
import { Loading } from './components/states';
import { AdminOnly, RequireSession } from './layout/guards';
import { RouteError } from './layout/RouteError';

const page = (load: () => Promise<{ default: ComponentType }>) => {
  const Page = lazy(load);
  return (
    <Suspense fallback={<Loading />}>
      <Page />
    </Suspense>
  );
};

const SetupPage = () => page(() => import('./pages/SetupPage'));
const LoginPage = () => page(() => import('./pages/LoginPage'));
const HomePage = () => page(() => import('./pages/HomePage'));
const SecurityPage = () => page(() => import('./pages/SecurityPage'));
const NotFoundPage = () => page(() => import('./pages/NotFoundPage'));
const ProfilePage = () => page(() => import('./pages/ProfilePage'));
const ResetPasswordPage = () => page(() => import('./pages/ResetPasswordPage'));
const LaterPage = () => page(() => import('./pages/LaterPage'));

const admin = (el: ReactNode) => <AdminOnly>{el}</AdminOnly>;

export const router = createBrowserRouter([
  {
    // A page that fails to render (or to load its chunk) shows a message and is reported.
    errorElement: <RouteError />,
    children: [
      { path: PAGE_PATHS.setup, element: <SetupPage /> },
      { path: PAGE_PATHS.login, element: <LoginPage /> },
      { path: PAGE_PATHS.resetPassword, element: <ResetPasswordPage /> },
      {
        element: (
          <RequireSession>
            <Outlet />
          </RequireSession>
        ),
        children: [
          { path: PAGE_PATHS.home, element: <HomePage /> },
          { path: PAGE_PATHS.dashboard, element: <HomePage /> },
          { path: PAGE_PATHS.profile, element: <ProfilePage /> },
          { path: PAGE_PATHS.securityLogs, element: admin(<SecurityPage />) },
          { path: PAGE_PATHS.trafficLogs, element: admin(<LaterPage />) },
          { path: PAGE_PATHS.latencyLogs, element: admin(<LaterPage />) },
          { path: PAGE_PATHS.admin, element: admin(<LaterPage />) },
          { path: PAGE_PATHS.adminFreeze, element: admin(<LaterPage />) },
          { path: PAGE_PATHS.adminHolidays, element: admin(<LaterPage />) },
          { path: PAGE_PATHS.adminTimings, element: admin(<LaterPage />) },
          { path: PAGE_PATHS.adminErrors, element: admin(<LaterPage />) },
          { path: PAGE_PATHS.adminSystem, element: admin(<LaterPage />) },
          { path: '*', element: <NotFoundPage /> },
        ],
      },
    ],
  },
]);
