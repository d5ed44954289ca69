/**
 * `/search/token`: OpenAlgo's token lookup — an instrument by symbol and exchange, or by the
 * broker's token — answered by the same path as JSON (docs/rules/web.md#negotiated-pages).
 */
import {
  Button,
  Card,
  Container,
  Group,
  NativeSelect,
  SegmentedControl,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import '@mantine/core/styles/FloatingIndicator.css';
import '@mantine/core/styles/SegmentedControl.css';
import { useState, type FormEvent } from 'react';
import { EXCHANGES } from '../../../../src/domain/exchanges';
import { fieldError, onlyFieldErrors } from '../../api/client';
import { Empty, ErrorState, Loading } from '../../components/states';
import { useTokenLookup, type TokenQuestion as Asked } from '../../features/search/api/search';
import { formatCount, formatPrice } from '../../format-number';

type By = Asked['by'];

const FIELDS = ['symbol', 'exchange', 'token'];

export default function TokenPage() {
  const [by, setBy] = useState<By>('symbol');
  const [symbol, setSymbol] = useState('');
  const [exchange, setExchange] = useState('NSE');
  const [token, setToken] = useState('');
  const [tokenExchange, setTokenExchange] = useState('');
  const [asked, setAsked] = useState<Asked | undefined>();
  const [missing, setMissing] = useState<string | undefined>();

  const lookup = useTokenLookup(asked);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const value = (by === 'symbol' ? symbol : token).trim();
    if (!value) {
      setMissing(by === 'symbol' ? 'Give the symbol to look up.' : 'Give the token to look up.');
      return;
    }
    setMissing(undefined);
    setAsked(
      by === 'symbol'
        ? { by, symbol: value.toUpperCase(), exchange, token: '' }
        : { by, symbol: '', exchange: tokenExchange, token: value },
    );
  };
  const err = lookup.error;
  const rows = lookup.data?.data ?? [];

  return (
    <Container size="lg">
      <Title order={1} size="h2" mb="md">
        Token lookup
      </Title>
      <Stack gap="lg">
        <Card withBorder>
          <form onSubmit={submit} noValidate aria-label="Token lookup">
            <Stack>
              <SegmentedControl
                aria-label="Look up by"
                data={[
                  { value: 'symbol', label: 'Symbol and exchange' },
                  { value: 'token', label: 'Token' },
                ]}
                value={by}
                onChange={(v) => {
                  setBy(v as By);
                  setMissing(undefined);
                }}
                maw={420}
              />
              {by === 'symbol' ? (
                <Group align="flex-start" wrap="wrap">
                  <TextInput
                    label="Symbol"
                    required
                    withAsterisk={false}
                    placeholder="SBIN or NIFTY18AUG2626000CE"
                    value={symbol}
                    onChange={(e) => setSymbol(e.currentTarget.value)}
                    error={missing ?? fieldError(err, 'symbol')}
                    miw={260}
                  />
                  <NativeSelect
                    label="Exchange"
                    data={[...EXCHANGES]}
                    value={exchange}
                    onChange={(e) => setExchange(e.currentTarget.value)}
                    error={fieldError(err, 'exchange')}
                  />
                </Group>
              ) : (
                <Group align="flex-start" wrap="wrap">
                  <TextInput
                    label="Token"
                    required
                    withAsterisk={false}
                    placeholder="3045"
                    value={token}
                    onChange={(e) => setToken(e.currentTarget.value)}
                    error={missing ?? fieldError(err, 'token')}
                    miw={260}
                  />
                  <NativeSelect
                    label="Exchange (optional)"
                    data={[
                      { value: '', label: 'Any exchange' },
                      ...EXCHANGES.map((x) => ({ value: x, label: x })),
                    ]}
                    value={tokenExchange}
                    onChange={(e) => setTokenExchange(e.currentTarget.value)}
                    error={fieldError(err, 'exchange')}
                  />
                </Group>
              )}
              <Group>
                <Button type="submit" loading={lookup.isFetching}>
                  Look up
                </Button>
              </Group>
            </Stack>
          </form>
        </Card>
        {asked && (
          <Card withBorder>
            {lookup.isPending ? (
              <Loading label="Looking up…" />
            ) : lookup.isError && !onlyFieldErrors(err, FIELDS) ? (
              <ErrorState error={err} title="Not looked up" />
            ) : lookup.isError ? (
              <Empty>Correct the field marked above.</Empty>
            ) : rows.length === 0 ? (
              <Empty>
                {asked.by === 'symbol'
                  ? `No instrument ${asked.symbol} on ${asked.exchange} in the master contract.`
                  : `No instrument has the token ${asked.token}${asked.exchange ? ` on ${asked.exchange}` : ''}.`}
              </Empty>
            ) : (
              <Table.ScrollContainer minWidth={760}>
                <Table aria-label="Instruments found">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Symbol</Table.Th>
                      <Table.Th>Exchange</Table.Th>
                      <Table.Th>Token</Table.Th>
                      <Table.Th>Broker symbol</Table.Th>
                      <Table.Th>Broker exchange</Table.Th>
                      <Table.Th>Type</Table.Th>
                      <Table.Th ta="right">Lot size</Table.Th>
                      <Table.Th ta="right">Tick size</Table.Th>
                      <Table.Th>Expiry</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {rows.map((r) => (
                      <Table.Tr key={`${r.exchange}:${r.symbol}:${r.token}`}>
                        <Table.Td ff="monospace">{r.symbol}</Table.Td>
                        <Table.Td>{r.exchange}</Table.Td>
                        <Table.Td ff="monospace" data-testid="token-value">
                          {r.token}
                        </Table.Td>
                        <Table.Td ff="monospace">{r.brsymbol}</Table.Td>
                        <Table.Td>{r.brexchange}</Table.Td>
                        <Table.Td>{r.instrumenttype}</Table.Td>
                        <Table.Td ta="right">{formatCount(r.lotsize)}</Table.Td>
                        <Table.Td ta="right">{formatPrice(r.tick_size)}</Table.Td>
                        <Table.Td>{r.expiry || '—'}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            )}
            {rows.length > 0 && (
              <Text size="xs" c="dimmed" mt="xs">
                The same answer as JSON: GET /search/token with these parameters.
              </Text>
            )}
          </Card>
        )}
      </Stack>
    </Container>
  );
}
