/**
 * The form of a flow, new or edited (docs/rules/flow.md#flow-management): name, enabled and the
 * definition as JSON, parsed in the browser first, then the server's faults, each naming the node
 * and the field, listed under it. A new flow answers its webhook credentials, shown once.
 */
import { Button, Code, Group, List, Stack, Switch, Textarea, TextInput } from '@mantine/core';
import '@mantine/core/styles/List.css';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ApiError, fieldError } from '../../../api/client';
import { ErrorState } from '../../../components/states';
import { allShown } from '../common';
import { BASE, KEY, STARTER_DEFINITION, type Flow, type Issued } from './model';

const FIELDS = ['name', 'definition', 'enabled'];

/** The server's faults of the definition: one line each (node, place, field). */
function definitionFaults(err: unknown): string[] {
  if (!(err instanceof ApiError)) return [];
  return err.fields.definition ?? [];
}

export function FlowForm({
  flow,
  onSaved,
  onCancel,
}: {
  flow?: Flow;
  onSaved: (issued?: Issued & { name: string }) => void;
  onCancel: () => void;
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(flow?.name ?? '');
  const [enabled, setEnabled] = useState(flow?.enabled ?? true);
  const [text, setText] = useState(flow ? JSON.stringify(flow.definition, null, 2) : STARTER_DEFINITION);
  const [parseError, setParseError] = useState<string | undefined>();
  const save = useMutation({
    mutationFn: async (definition: unknown) => {
      const body = { name: name.trim(), definition, enabled };
      if (flow) {
        await api<{ data: Flow }>('PUT', `${BASE}/${flow.id}`, body);
        return undefined;
      }
      const made = await api<{ data: Flow } & Issued>('POST', '/flow/api/flows', body);
      return {
        name: made.data.name,
        webhook_token: made.webhook_token,
        webhook_url: made.webhook_url,
        secret: made.secret,
      };
    },
    onSuccess: async (issued) => {
      await queryClient.invalidateQueries({ queryKey: KEY });
      onSaved(issued);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    let definition: unknown;
    try {
      definition = JSON.parse(text);
    } catch (err) {
      save.reset();
      setParseError(`Not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    setParseError(undefined);
    save.mutate(definition);
  };
  const err = save.error;
  const faults = definitionFaults(err);
  return (
    <form onSubmit={submit} noValidate aria-label={flow ? `Edit flow ${flow.name}` : 'New flow'}>
      <Stack>
        {err && !allShown(err, FIELDS) && <ErrorState error={err} title="Not saved" />}
        <TextInput
          label="Name"
          required
          withAsterisk={false}
          maxLength={100}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={fieldError(err, 'name')}
        />
        <Switch
          label="Enabled"
          checked={enabled}
          onChange={(e) => setEnabled(e.currentTarget.checked)}
          error={fieldError(err, 'enabled')}
        />
        <Textarea
          label="Definition (JSON)"
          description={
            <>
              Nodes run in order: <Code>condition</Code>, <Code>place_order</Code>, <Code>smart_order</Code>,{' '}
              <Code>close_position</Code>, <Code>cancel_all</Code>, <Code>notify</Code>, <Code>wait</Code>.
              Text fields may use <Code>{'{{symbol}}'}</Code>, <Code>{'{{webhook.<field>}}'}</Code> and{' '}
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
        <Group>
          <Button type="submit" loading={save.isPending}>
            {flow ? 'Save changes' : 'Create flow'}
          </Button>
          <Button variant="default" onClick={() => setText(STARTER_DEFINITION)}>
            Use the starter definition
          </Button>
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
