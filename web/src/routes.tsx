/**
 * The console's routes: every path is one of the server's page paths (web-pages.ts, read by both
 * sides), each page its own chunk loaded on first visit (docs/rules/web.md#first-load-budget).
 */
import { lazy, Suspense, type ComponentType, type ReactNode } from 'react';
import { createBrowserRouter, Outlet } from 'react-router';
import { NEGOTIATED_PAGE_PATHS, PAGE_PATHS, PAGE_PATTERNS } from '../../src/modules/web/web-pages';
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
const SecurityPage = () => page(() => import('./pages/SecurityPage'));
const NotFoundPage = () => page(() => import('./pages/NotFoundPage'));
const ProfilePage = () => page(() => import('./pages/ProfilePage'));
const ResetPasswordPage = () => page(() => import('./pages/ResetPasswordPage'));
const TrafficPage = () => page(() => import('./pages/monitoring/TrafficPage'));
const LatencyPage = () => page(() => import('./pages/monitoring/LatencyPage'));
const AdminHomePage = () => page(() => import('./pages/admin/AdminHomePage'));
const FreezePage = () => page(() => import('./pages/admin/FreezePage'));
const HolidaysPage = () => page(() => import('./pages/admin/HolidaysPage'));
const TimingsPage = () => page(() => import('./pages/admin/TimingsPage'));
const ErrorsPage = () => page(() => import('./pages/admin/ErrorsPage'));
const SystemPage = () => page(() => import('./pages/admin/SystemPage'));
const AgentsPage = () => page(() => import('./pages/admin/AgentsPage'));
const UsersPage = () => page(() => import('./pages/admin/UsersPage'));
const BrokerAppsPage = () => page(() => import('./pages/admin/BrokerAppsPage'));
const ApiKeyPage = () => page(() => import('./pages/ApiKeyPage'));
const ScannersPage = () => page(() => import('./pages/integrations/ScannersPage'));
const FlowsPage = () => page(() => import('./pages/integrations/FlowsPage'));
const DashboardPage = () => page(() => import('./pages/desk/DashboardPage'));
const OrderbookPage = () => page(() => import('./pages/desk/OrderbookPage'));
const TradebookPage = () => page(() => import('./pages/desk/TradebookPage'));
const GttPage = () => page(() => import('./pages/desk/GttPage'));
const PositionsPage = () => page(() => import('./pages/desk/PositionsPage'));
const HoldingsPage = () => page(() => import('./pages/desk/HoldingsPage'));
const ActionCenterPage = () => page(() => import('./pages/desk/ActionCenterPage'));
const SearchPage = () => page(() => import('./pages/search/SearchPage'));
const TokenPage = () => page(() => import('./pages/search/TokenPage'));
const StrategiesPage = () => page(() => import('./pages/strategy/StrategiesPage'));
const NewStrategyPage = () => page(() => import('./pages/strategy/NewStrategyPage'));
const StrategyPage = () => page(() => import('./pages/strategy/StrategyPage'));
const AnalyzerPage = () => page(() => import('./pages/account/AnalyzerPage'));
const BrokerPage = () => page(() => import('./pages/account/BrokerPage'));
const MasterContractPage = () => page(() => import('./pages/account/MasterContractPage'));
const WatchlistPage = () => page(() => import('./pages/trade/WatchlistPage'));
const ChartPage = () => page(() => import('./pages/trade/ChartPage'));
const OptionChainPage = () => page(() => import('./pages/trade/OptionChainPage'));

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
          { path: PAGE_PATHS.home, element: <DashboardPage /> },
          { path: PAGE_PATHS.dashboard, element: <DashboardPage /> },
          { path: PAGE_PATHS.orderbook, element: <OrderbookPage /> },
          { path: PAGE_PATHS.tradebook, element: <TradebookPage /> },
          { path: PAGE_PATHS.gtt, element: <GttPage /> },
          { path: PAGE_PATHS.positions, element: <PositionsPage /> },
          { path: PAGE_PATHS.holdings, element: <HoldingsPage /> },
          { path: PAGE_PATHS.actionCenter, element: <ActionCenterPage /> },
          { path: PAGE_PATHS.watchlist, element: <WatchlistPage /> },
          { path: PAGE_PATTERNS.chart.path, element: <ChartPage /> },
          { path: PAGE_PATTERNS.optionChain.path, element: <OptionChainPage /> },
          { path: PAGE_PATHS.search, element: <SearchPage /> },
          { path: NEGOTIATED_PAGE_PATHS.searchToken, element: <TokenPage /> },
          { path: PAGE_PATHS.strategies, element: <StrategiesPage /> },
          { path: PAGE_PATHS.strategyNew, element: <NewStrategyPage /> },
          { path: PAGE_PATTERNS.strategy.path, element: <StrategyPage /> },
          { path: PAGE_PATHS.analyzer, element: <AnalyzerPage /> },
          { path: PAGE_PATHS.broker, element: <BrokerPage /> },
          { path: PAGE_PATHS.masterContract, element: <MasterContractPage /> },
          { path: PAGE_PATHS.profile, element: <ProfilePage /> },
          { path: NEGOTIATED_PAGE_PATHS.apikey, element: <ApiKeyPage /> },
          { path: PAGE_PATHS.scanners, element: <ScannersPage /> },
          { path: PAGE_PATHS.chartink, element: <ScannersPage /> },
          { path: PAGE_PATHS.flows, element: <FlowsPage /> },
          { path: PAGE_PATHS.securityLogs, element: admin(<SecurityPage />) },
          { path: PAGE_PATHS.trafficLogs, element: admin(<TrafficPage />) },
          { path: PAGE_PATHS.latencyLogs, element: admin(<LatencyPage />) },
          { path: PAGE_PATHS.admin, element: admin(<AdminHomePage />) },
          { path: PAGE_PATHS.adminFreeze, element: admin(<FreezePage />) },
          { path: PAGE_PATHS.adminHolidays, element: admin(<HolidaysPage />) },
          { path: PAGE_PATHS.adminTimings, element: admin(<TimingsPage />) },
          { path: PAGE_PATHS.adminErrors, element: admin(<ErrorsPage />) },
          { path: PAGE_PATHS.adminSystem, element: admin(<SystemPage />) },
          { path: PAGE_PATHS.adminAgents, element: admin(<AgentsPage />) },
          { path: PAGE_PATHS.adminUsers, element: admin(<UsersPage />) },
          { path: PAGE_PATHS.adminBrokers, element: admin(<BrokerAppsPage />) },
          { path: '*', element: <NotFoundPage /> },
        ],
      },
    ],
  },
]);
