/**
 * The form of a flow, new or edited (docs/rules/flow.md#flow-management): name, enabled and the
 * definition as JSON, parsed in the browser first, then the server's faults, each naming the node
 * and the field, listed under it. A new flow answers its webhook credentials, shown once.
 */
import { Button, Code, List, Switch, Textarea } from '@mantine/core';
import '@mantine/core/styles/List.css';
import { useState } from 'react';
import { ApiError } from '../../../api/client';
import {
  binder,
  SourceForm,
  type SourceFormKind,
  type SourceFormProps,
} from '../../../components/webhooks/SourceForm';
import { useSaveFlow } from '../../../features/integrations/api/flows';
import type { Flow, FlowIssued } from '../../../features/integrations/api/types';
import { STARTER_DEFINITION } from './model';

const FLOW: SourceFormKind = { noun: 'flow', fields: ['name', 'definition', 'enabled'] };

/** The server's faults of the definition: one line each (node, place, field). */
function definitionFaults(err: unknown): string[] {
  if (!(err instanceof ApiError)) return [];
  return err.fields.definition ?? [];
}

export function FlowForm({ source: flow, onSaved, onCancel }: SourceFormProps<Flow, FlowIssued>) {
  const [enabled, setEnabled] = useState(flow?.enabled ?? true);
  const [text, setText] = useState(flow ? JSON.stringify(flow.definition, null, 2) : STARTER_DEFINITION);
  const [parseError, setParseError] = useState<string | undefined>();
  const save = useSaveFlow(flow?.id);
  const bind = binder(save.error);
  const submit = (name: string) => {
    let definition: unknown;
    try {
      definition = JSON.parse(text);
    } catch (err) {
      save.reset();
      setParseError(`Not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    setParseError(undefined);
    save.mutate({ name, definition, enabled }, { onSuccess: onSaved });
  };
  const err = save.error;
  const faults = definitionFaults(err);
  return (
    <SourceForm
      kind={FLOW}
      source={flow}
      save={save}
      onSubmit={submit}
      onCancel={onCancel}
      extra={
        <Button variant="default" onClick={() => setText(STARTER_DEFINITION)}>
          Use the starter definition
        </Button>
      }
    >
      <Switch label="Enabled" {...bind.check('enabled', enabled, setEnabled)} />
      <Textarea
        label="Definition (JSON)"
        description={
          <>
            Nodes run in order: <Code>condition</Code>, <Code>place_order</Code>, <Code>smart_order</Code>,{' '}
            <Code>close_position</Code>, <Code>cancel_all</Code>, <Code>notify</Code>, <Code>wait</Code>. Text
            fields may use <Code>{'{{symbol}}'}</Code>, <Code>{'{{webhook.<field>}}'}</Code> and{' '}
            <Code>{'{{quote.ltp}}'}</Code>.
          </>
        }
        value={text}
        onChange={(e) => setText(e.currentTarget.value)}
        autosize
        minRows={12}
        maxRows={28}
        spellCheck={false}
        autoCapitalize="off"
        autoCorrect="off"
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }}
        error={parseError ?? (faults.length > 0 ? 'The server refused this definition:' : undefined)}
      />
      {faults.length > 0 && (
        <List size="sm" c="red" spacing={4} aria-label="Faults of the definition" data-testid="flow-faults">
          {faults.map((f) => (
            <List.Item key={f}>{f}</List.Item>
          ))}
        </List>
      )}
    </SourceForm>
  );
}
