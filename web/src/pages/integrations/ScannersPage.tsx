/**
 * `/scanners` (and OpenAlgo's `/chartink`): the user's scanner alerts (docs/rules/scanner.md) —
 * list, create, edit, delete, rotate the webhook id (its URL shown once, with a copy button, at
 * creation and rotation: #scanner-webhook-id) and each scanner's deliveries with every symbol's
 * outcome (#scanner-audit). The administrator also allows or forbids live orders per scanner.
 * The page is the webhook sources' page (components/webhooks) configured for scanners.
 */
import { Alert, Text } from '@mantine/core';
import { useSession } from '../../api/auth';
import type { Column } from '../../components/webhooks/columns';
import { Empty } from '../../components/states';
import { SourceSwitch } from '../../components/webhooks/SourceSwitch';
import { WebhookSourcePage } from '../../components/webhooks/WebhookSourcePage';
import {
  useDeleteScanner,
  useRotateScanner,
  useScannerLive,
  useScanners,
} from '../../features/integrations/api/scanners';
import type { Scanner, ScannerDelivery, ScannerIssued } from '../../features/integrations/api/types';
import { modeBadge, sizingCell, windowCell } from './scanners/cells';
import { DELIVERIES } from './scanners/deliveries';
import { ScannerForm } from './scanners/ScannerForm';

const liveSwitch = (s: Scanner) => (
  <SourceSwitch
    label={`Allow live orders for ${s.name}`}
    checked={s.live_enabled}
    id={s.id}
    use={useScannerLive}
  />
);

export default function ScannersPage() {
  const user = useSession().data;
  const list = useScanners();
  const rotate = useRotateScanner();
  const remove = useDeleteScanner();
  const columns: Column<Scanner>[] = [
    { header: 'Name', cell: (s) => s.name, strong: true, card: false },
    { header: 'Action', cell: (s) => s.action },
    {
      header: 'Exchange / product',
      cell: (s) => (
        <>
          {s.exchange} / {s.product}
        </>
      ),
      nowrap: true,
      card: 'text',
    },
    { header: 'Sizing', cell: sizingCell, nowrap: true, card: 'text' },
    { header: 'Window (IST)', cell: windowCell, nowrap: true, card: 'text' },
    { header: 'Mode', cell: modeBadge, card: false },
    { header: 'Enabled', cell: (s) => (s.enabled ? 'Yes' : 'No') },
    {
      header: 'Live allowed',
      cell: (s) => (user?.is_admin ? liveSwitch(s) : s.live_enabled ? 'Yes' : 'No'),
      card: 'block',
    },
  ];
  return (
    <WebhookSourcePage<Scanner, ScannerIssued, ScannerDelivery>
      title="Scanners"
      create={{ label: 'New scanner' }}
      intro="Chartink alerts turn into orders: each scanner has a webhook URL to paste into a Chartink alert. Each stock of an alert is bought or sold with the scanner’s sizing, within its trading window."
      list={list}
      loading="Loading scanners…"
      empty={<Empty>No scanner yet: create one to get a webhook URL.</Empty>}
      columns={columns}
      minWidth={860}
      card={{ aside: modeBadge }}
      form={{ component: ScannerForm, newTitle: 'New scanner', size: 'lg' }}
      issued={{
        title: (name) => `Webhook URL of ${name}`,
        lines: (i) => [{ label: 'Webhook URL', value: i.webhook_url, testId: 'scanner-webhook-url' }],
      }}
      rotate={{
        call: rotate,
        title: 'Rotate the webhook URL?',
        says: (name) => (
          <Text>
            {name} gets a new webhook URL, shown once. The current one stops working at once: update your
            Chartink alert.
          </Text>
        ),
      }}
      remove={{
        call: remove,
        title: 'Delete the scanner?',
        says: (name) => (
          <Text>
            Delete {name}? Its webhook URL stops working at once; its deliveries stay in the audit, and
            positions it opened are left to you.
          </Text>
        ),
      }}
      audit={DELIVERIES}
      footer={(rows) =>
        user &&
        !user.is_admin &&
        rows.some((s) => s.mode === 'live' && !s.live_enabled) && (
          <Alert color="yellow" mt="md">
            A live scanner’s alerts are refused until an administrator allows live orders for it.
          </Alert>
        )
      }
    />
  );
}
