// The component kit's styles first, so the console's own (CSS modules) come after them.
import './styles';
import { MantineProvider, createTheme } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { ApiError, onSessionExpired } from './api/client';
import { SESSION_KEY } from './api/auth';
import { installErrorReporting } from './report-errors';
import { installPageTitles } from './layout/page-titles';
import { router } from './routes';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal (4xx) is an answer: asking again would not change it.
      retry: (count, err) => !(err instanceof ApiError && err.status < 500) && count < 2,
      refetchOnWindowFocus: true,
    },
  },
});

// docs/rules/web.md#session-expiry: a 401 anywhere drops the session; the guarded layout then
// sends the user to /login with the page to come back to.
onSessionExpired(() => queryClient.setQueryData(SESSION_KEY, null));

installErrorReporting();

// docs/rules/web.md#page-titles: every page names its tab, from one map (layout/page-titles.ts).
installPageTitles(router, document);

// docs/rules/web.md#theme: the system's scheme unless the person chose one (ThemeSwitch.tsx).
const theme = createTheme({ primaryColor: 'blue', defaultRadius: 'sm' });

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="auto">
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
