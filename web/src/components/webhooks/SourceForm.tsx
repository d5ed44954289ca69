/**
 * The frame of a webhook source's form, new or edited (docs/rules/web.md#field-messages): the
 * server's refusal above the fields when it names a field the form does not have (or none), the
 * source's name, the kind's own fields, then the submit button, any extra button, and Cancel.
 */
import { Button, Group, Stack, TextInput } from '@mantine/core';
import { useState, type FormEvent, type ReactNode } from 'react';
import { ApiError, fieldError } from '../../api/client';
import { ErrorState } from '../states';

/** What the page gives its form: the source to edit (none: a new one), and what saving or cancelling does. */
export interface SourceFormProps<T, I> {
  source?: T;
  /** Saved; a new source's credentials, issued once, come with it. */
  onSaved: (issued?: I & { name: string }) => void;
  onCancel: () => void;
}

/** The server's messages of a field and of its sub-fields (`overrides.SBIN`), or undefined. */
export function prefixError(err: unknown, field: string): string | undefined {
  if (!(err instanceof ApiError)) return undefined;
  const msgs = Object.entries(err.fields)
    .filter(([k]) => k === field || k.startsWith(`${field}.`))
    .map(([k, v]) => (k === field ? v.join(' ') : `${k.slice(field.length + 1)}: ${v.join(' ')}`));
  return msgs.length > 0 ? msgs.join(' ') : undefined;
}

/**
 * Binds a form's fields to their state and to the server's messages (`error` by field, under the
 * field it names: docs/rules/web.md#field-messages): a text input, text area or select (`text`),
 * a number input (`number`), a switch (`check`).
 */
export function binder(err: unknown) {
  return {
    text: (field: string, value: string, set: (v: string) => void) => ({
      value,
      onChange: (e: { currentTarget: { value: string } }) => set(e.currentTarget.value),
      error: fieldError(err, field),
    }),
    number: (field: string, value: number | string, set: (v: number | string) => void) => ({
      value,
      onChange: set,
      error: fieldError(err, field),
    }),
    check: (field: string, checked: boolean, set: (v: boolean) => void) => ({
      checked,
      onChange: (e: { currentTarget: { checked: boolean } }) => set(e.currentTarget.checked),
      error: fieldError(err, field),
    }),
  };
}

/** Whether every field the error names is one of the form's (so no general alert is needed). */
export function allShown(err: unknown, fields: readonly string[]): boolean {
  if (!(err instanceof ApiError)) return false;
  const keys = Object.keys(err.fields);
  return keys.length > 0 && keys.every((k) => fields.some((f) => k === f || k.startsWith(`${f}.`)));
}

/** A kind of source's form: what a source is called, and the server's names of the form's fields. */
export interface SourceFormKind {
  /** "scanner": the form is "New scanner" or "Edit scanner <name>", its button "Create scanner". */
  noun: string;
  /** A refusal naming only these is shown under the fields; any other above the form. */
  fields: readonly string[];
}

export function SourceForm({
  kind: { noun, fields },
  source,
  save,
  onSubmit,
  onCancel,
  extra,
  children,
}: {
  kind: SourceFormKind;
  /** The source edited; none for a new one. */
  source: { name: string } | undefined;
  /** The save call: its refusal and whether it is under way. */
  save: { error: Error | null; isPending: boolean };
  /** Sends the form, with the name typed (every source has one: the form's first field). */
  onSubmit: (name: string) => void;
  onCancel: () => void;
  /** Buttons between submit and Cancel. */
  extra?: ReactNode;
  children: ReactNode;
}) {
  const [name, setName] = useState(source?.name ?? '');
  const send = (e: FormEvent) => {
    e.preventDefault();
    onSubmit(name.trim());
  };
  const error = save.error;
  const bind = binder(error);
  return (
    <form onSubmit={send} noValidate aria-label={source ? `Edit ${noun} ${source.name}` : `New ${noun}`}>
      <Stack>
        {error && !allShown(error, fields) && <ErrorState error={error} title="Not saved" />}
        <TextInput
          label="Name"
          required
          withAsterisk={false}
          maxLength={100}
          {...bind.text('name', name, setName)}
        />
        {children}
        <Group>
          <Button type="submit" loading={save.isPending}>
            {source ? 'Save changes' : `Create ${noun}`}
          </Button>
          {extra}
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
