/**
 * A path no page has (docs/rules/web.md#app-shell-paths): the server answered 404 with the shell,
 * and this says so, names the path and where to go instead.
 */
import { Alert, Anchor, Container, Text } from '@mantine/core';
import { Link, useLocation } from 'react-router';

export default function NotFoundPage() {
  const { pathname } = useLocation();
  return (
    <Container size="sm" py="xl">
      <Alert color="gray" title="No such page">
        <Text size="sm">
          There is no page at <code style={{ overflowWrap: 'anywhere' }}>{pathname}</code>.{' '}
          <Anchor component={Link} to="/">
            Go to the dashboard
          </Anchor>
          , or pick a page from the menu.
        </Text>
      </Alert>
    </Container>
  );
}
