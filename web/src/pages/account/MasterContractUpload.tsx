/**
 * The administrator's upload of a broker's instrument file on `/master-contract`
 * (docs/rules/web.md#account-pages): a file (plain CSV or gzip), its format (the importers the
 * server names) and one button. The file goes as multipart/form-data to
 * `POST /api/master-contract/upload`, which imports it as it arrives; meanwhile the page follows
 * the import on the status route exactly as it follows a download, and the answer comes when the
 * import is done.
 */
import { Alert, Button, FileInput, Group, NativeSelect, Stack, Text } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { ErrorState } from '../../components/states';
import { useUploadContractMutation } from '../../features/account/api/master-contract';
import { brokerLabel, bytes, count } from './format';

/** The broker whose format to offer first: the contract in use's, else the latest run's. */
function preferred(formats: readonly string[], ...brokers: (string | null | undefined)[]): string {
  return brokers.find((b): b is string => !!b && formats.includes(b)) ?? formats[0] ?? '';
}

export function UploadFile({
  formats,
  maxBytes,
  prefer,
  busy,
  onSettled,
}: {
  /** The importers' ids, as the status route names them. */
  formats: readonly string[];
  /** The largest file the server takes. */
  maxBytes: number;
  /** Brokers to preselect, the first one the server has an importer for. */
  prefer: (string | null | undefined)[];
  /** An import runs: nothing is sent until it ends. */
  busy: boolean;
  /** The upload's answer came (either way): the page reads the status again. */
  onSettled: () => void;
}) {
  const [file, setFile] = useState<File | null>(null);
  const [broker, setBroker] = useState<string>(() => preferred(formats, ...prefer));
  const upload = useUploadContractMutation(onSettled);
  const tooBig = file !== null && file.size > maxBytes;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (file && !tooBig) upload.mutate({ file, broker });
  };
  const done = upload.data;
  return (
    <form onSubmit={submit} noValidate aria-label="Upload an instrument file">
      <Stack>
        <Text size="sm" c="dimmed">
          For an install without internet access: the broker’s instrument file as downloaded elsewhere (plain
          CSV or <code>.gz</code>, at most {bytes(maxBytes)}). It replaces the contract in use once the import
          succeeds; a file that fails leaves the current one in place.
        </Text>
        {upload.isError && (
          // The server's refusal may quote the file's header, one long word: wrapped anywhere.
          <div style={{ overflowWrap: 'anywhere' }}>
            <ErrorState error={upload.error} title="Not imported" />
          </div>
        )}
        {done && upload.isSuccess && (
          <Alert color="green" role="status" title="Upload imported">
            <Text data-testid="upload-result">
              {count(done.total_symbols)} {brokerLabel(done.broker)} instruments imported from{' '}
              {upload.variables.file.name}; {count(done.skipped)} rows skipped.
            </Text>
          </Alert>
        )}
        <Group align="flex-start" wrap="wrap">
          <FileInput
            label="Instrument file"
            placeholder="Choose a file"
            accept=".csv,.gz,.txt,text/csv,text/plain,application/gzip,application/x-gzip"
            value={file}
            onChange={(f) => {
              setFile(f);
              upload.reset();
            }}
            error={tooBig ? `The file is ${bytes(file.size)}: the limit is ${bytes(maxBytes)}.` : undefined}
            clearable
            w={{ base: '100%', xs: 260 }}
            disabled={upload.isPending}
          />
          <NativeSelect
            label="File format"
            data={formats.map((b) => ({ value: b, label: brokerLabel(b) }))}
            value={broker}
            onChange={(e) => setBroker(e.currentTarget.value)}
            disabled={upload.isPending}
          />
        </Group>
        <Group>
          <Button
            type="submit"
            loading={upload.isPending}
            disabled={busy || file === null || tooBig || broker === ''}
          >
            Upload and import
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
