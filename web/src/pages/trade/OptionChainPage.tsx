/**
 * `/optionchain/:underlying`: the option chain of an underlying (docs/rules/market-data.md#option-chain)
 * for one expiry, strikes around ATM with each side's LTP, change, OI, volume, IV and delta, the
 * prices following the live feed (docs/rules/web.md#live-prices); a price opens the order ticket
 * for its contract, and a straddle or strangle goes out as one basket. An index underlying is
 * quoted on NSE_INDEX (BSE_INDEX for SENSEX and BANKEX), a stock on NSE unless `?exchange=BSE`.
 */
import { Alert, Anchor, Button, Container, Group, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { optionChainPagePath, PAGE_PATHS } from '../../../../src/modules/web/web-pages';
import { useBrokerSession } from '../../api/desk';
import { useLive } from '../../api/live';
import { LiveStatus } from '../../components/LiveStatus';
import { ChainView } from './option-chain/ChainView';
import { optionExchange, underlyingExchange, UNDERLYINGS } from '../../features/market/option-chain-model';

function UnderlyingSwitcher({ current }: { current: string }) {
  const navigate = useNavigate();
  const [text, setText] = useState(current);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const next = text.trim().toUpperCase();
    if (next && next !== current) void navigate(optionChainPagePath(next));
  };
  return (
    <form onSubmit={submit} aria-label="Underlying">
      <Group gap="xs" align="flex-end" wrap="nowrap">
        <TextInput
          label="Underlying"
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          list="optionchain-underlyings"
          autoComplete="off"
          w={150}
        />
        <datalist id="optionchain-underlyings">
          {UNDERLYINGS.map((u) => (
            <option key={u} value={u} />
          ))}
        </datalist>
        <Button type="submit" variant="light">
          Show
        </Button>
      </Group>
    </form>
  );
}

export default function OptionChainPage() {
  const params = useParams();
  const [search] = useSearchParams();
  const underlying = (params.underlying ?? 'NIFTY').trim().toUpperCase();
  const exchange = underlyingExchange(underlying, search.get('exchange'));
  const options = optionExchange(exchange);
  // The page holds the live socket: its options and the underlying tick on it.
  const live = useLive();
  // Chains and greeks are the broker's in both modes (docs/rules/market-data.md): without a
  // session the page says so rather than asking for a refusal.
  const session = useBrokerSession();
  const noBroker = session.isSuccess && session.data.data == null;

  return (
    <Container fluid px={{ base: 'xs', sm: 'md' }}>
      <Group justify="space-between" mb="md" align="flex-end" gap="sm">
        <Title order={1} size="h2">
          Option chain · {underlying}
        </Title>
        <Group gap="sm" align="flex-end">
          <UnderlyingSwitcher key={underlying} current={underlying} />
          <LiveStatus state={live.state} />
        </Group>
      </Group>
      {noBroker ? (
        <Alert color="yellow" title="Option data needs a broker session" role="status">
          Option chains and greeks are priced by your broker, in both modes.{' '}
          <Anchor component={Link} to={PAGE_PATHS.broker}>
            Connect your broker
          </Anchor>
          .
        </Alert>
      ) : (
        // A new underlying starts afresh: its own expiry, strikes and builder.
        <ChainView
          key={`${exchange}:${underlying}`}
          underlying={underlying}
          exchange={exchange}
          options={options}
        />
      )}
    </Container>
  );
}
