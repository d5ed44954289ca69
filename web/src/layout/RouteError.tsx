import { Alert, Anchor, Container } from '@mantine/core';
import { useEffect } from 'react';
import { useRouteError } from 'react-router';
import { reportClientError } from '../report-errors';

/** What a page that failed shows: a plain message and the way on; the error goes to the log. */
export function RouteError() {
  const error = useRouteError();
  useEffect(() => reportClientError(error), [error]);
  return (
    <Container size="sm" py="xl">
      <Alert color="red" title="This page failed" role="alert">
        Something went wrong while showing this page; it was reported.{' '}
        <Anchor href="/">Reload the console</Anchor>.
      </Alert>
    </Container>
  );
}
