/**
 * The sandbox configuration as facts on the /analyzer page (docs/rules/web.md#account-pages): starting
 * funds, reset, sessions, leverage, the F&O margin rule, charges and the MIS square-off times.
 */
import { SimpleGrid, Table } from '@mantine/core';
import { sessionsWords, type SandboxAccount as Account } from '../../../features/account/api/sandbox';
import { rupees } from '../format';

const LEVERAGE_LABELS: Array<[keyof Account['settings']['leverage'], string]> = [
  ['equity_mis', 'Equity intraday (MIS)'],
  ['equity_cnc', 'Equity delivery (CNC)'],
  ['equity_nrml', 'Equity carry-forward (NRML)'],
  ['option_buy', 'Option buying'],
];

/** Classes of underlying of the F&O margin approximation (docs/rules/sandbox.md#margins-like-a-broker). */
const FNO_CLASSES: Array<[string, string]> = [
  ['index', 'index'],
  ['stock', 'stock'],
  ['currency', 'currency'],
  ['commodity', 'commodity'],
];

function resetWords(day: string, time: string): string {
  if (day === 'never') return 'Never: only when you reset it';
  if (day === 'daily') return `Every day at ${time} IST`;
  return `Every ${day[0]!.toUpperCase()}${day.slice(1)} at ${time} IST`;
}

export function Settings({ s }: { s: Account['settings'] }) {
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
      <Table variant="vertical" withTableBorder aria-label="Sandbox configuration">
        <Table.Tbody>
          <Table.Tr>
            <Table.Th w={260}>Starting funds</Table.Th>
            <Table.Td>{rupees(s.starting_funds)}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>Automatic reset</Table.Th>
            <Table.Td>{resetWords(s.reset_day, s.reset_time)}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>Market sessions</Table.Th>
            <Table.Td data-testid="sandbox-sessions">{sessionsWords(s.sessions)}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>Oldest quote that fills</Table.Th>
            <Table.Td>{s.max_quote_age_seconds} seconds</Table.Td>
          </Table.Tr>
          {LEVERAGE_LABELS.map(([k, label]) => (
            <Table.Tr key={k}>
              <Table.Th>Leverage: {label}</Table.Th>
              <Table.Td>{s.leverage[k]}×</Table.Td>
            </Table.Tr>
          ))}
          <Table.Tr>
            <Table.Th>Futures and option selling</Table.Th>
            <Table.Td data-testid="sandbox-fno-margin">
              Your broker&apos;s margin calculator when you have a broker session; else SPAN + exposure of the
              underlying&apos;s value:{' '}
              {FNO_CLASSES.map(([k, label]) => {
                const r = s.fno_margin[k];
                return r ? `${label} ${r.span} % + ${r.exposure} %` : null;
              })
                .filter(Boolean)
                .join(', ')}
            </Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>Charges</Table.Th>
            <Table.Td>
              {s.charges === 'book'
                ? 'Booked on every fill: brokerage, STT, exchange, SEBI, stamp duty, GST'
                : 'Off: fills book no charges (SANDBOX_CHARGES=off)'}
            </Table.Td>
          </Table.Tr>
        </Table.Tbody>
      </Table>
      <Table withTableBorder aria-label="MIS square-off times">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Exchange</Table.Th>
            <Table.Th>MIS square-off (IST)</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {Object.entries(s.square_off).map(([exchange, time]) => (
            <Table.Tr key={exchange}>
              <Table.Td>{exchange}</Table.Td>
              <Table.Td>{time}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </SimpleGrid>
  );
}
