/**
 * `/flows`: the user's flow workflows (docs/rules/flow.md) — list, create and edit with the
 * definition as JSON (parsed in the browser first, then the server's faults, each naming the node
 * and the field, listed under it: #flow-management), the enabled switch, delete, rotate (the
 * webhook token, secret and URL shown once with copy buttons: #flow-webhook) and each flow's runs
 * with every node's outcome (#flow-runs). The page is the webhook sources' page
 * (components/webhooks) configured for flows; the form and the runs are in `flows/`.
 */
import { Alert, Code, Text } from '@mantine/core';
import type { Column } from '../../components/webhooks/columns';
import { Empty } from '../../components/states';
import { SourceSwitch } from '../../components/webhooks/SourceSwitch';
import { WebhookSourcePage } from '../../components/webhooks/WebhookSourcePage';
import {
  useDeleteFlow,
  useFlowEnabled,
  useFlows,
  useRotateFlow,
} from '../../features/integrations/api/flows';
import type { Flow, FlowIssued, FlowRun } from '../../features/integrations/api/types';
import { istDateTime } from '../../ist-time';
import { FlowForm } from './flows/FlowForm';
import { nodeCount } from './flows/model';
import { RUNS } from './flows/runs';

const enabledSwitch = (f: Flow) => (
  <SourceSwitch label={`${f.name} enabled`} checked={f.enabled} id={f.id} use={useFlowEnabled} />
);

const COLUMNS: Column<Flow>[] = [
  { header: 'Name', cell: (f) => f.name, strong: true },
  { header: 'Nodes', cell: (f) => nodeCount(f.definition) },
  { header: 'Updated (IST)', cell: (f) => istDateTime(f.updated_at), nowrap: true },
  { header: 'Enabled', cell: enabledSwitch },
];

export default function FlowsPage() {
  const list = useFlows();
  const rotate = useRotateFlow();
  const remove = useDeleteFlow();
  return (
    <WebhookSourcePage<Flow, FlowIssued, FlowRun>
      title="Flows"
      create={{ label: 'New flow' }}
      intro={
        <>
          A flow is a short list of steps — conditions, orders, notifications — that a webhook starts. POST a
          JSON body with the flow’s secret to its URL, for example{' '}
          <Code>{'{"secret": "…", "action": "BUY"}'}</Code>; add <Code>/SYMBOL</Code> to the URL to set{' '}
          <Code>{'{{symbol}}'}</Code>.
        </>
      }
      list={list}
      loading="Loading flows…"
      empty={<Empty>No flow yet: create one from the starter definition to get a webhook.</Empty>}
      columns={COLUMNS}
      minWidth={720}
      card={{
        aside: enabledSwitch,
        body: (f) => (
          <Text size="sm" c="dimmed" mb="sm">
            {nodeCount(f.definition)} nodes · updated {istDateTime(f.updated_at)}
          </Text>
        ),
      }}
      form={{ component: FlowForm, newTitle: 'New flow', size: 'xl' }}
      issued={{
        title: (name) => `Webhook of ${name}`,
        lines: (i) => [
          { label: 'Webhook URL', value: i.webhook_url, testId: 'flow-webhook-url' },
          { label: 'Token', value: i.webhook_token, testId: 'flow-webhook-token' },
          { label: 'Secret', value: i.secret, testId: 'flow-webhook-secret' },
        ],
      }}
      rotate={{
        call: rotate,
        title: 'Rotate the webhook token and secret?',
        says: (name) => (
          <Text>{name} gets a new token and secret, shown once. The current ones stop working at once.</Text>
        ),
      }}
      remove={{
        call: remove,
        title: 'Delete the flow?',
        says: (name) => (
          <Text>Delete {name}? Its webhook stops working at once; its runs stay in the audit.</Text>
        ),
      }}
      audit={RUNS}
      footer={(rows) =>
        rows.length > 0 &&
        !rows.some((f) => f.enabled) && (
          <Alert color="yellow" mt="md">
            Every flow is disabled: their webhooks are refused.
          </Alert>
        )
      }
    />
  );
}
