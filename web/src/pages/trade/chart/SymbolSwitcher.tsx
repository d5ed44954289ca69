/**
 * The chart's symbol box: the session search's instruments as the person types (debounced, two
 * characters at least), any exchange; picking one opens that instrument's chart.
 */
import { Autocomplete } from '@mantine/core';
import '@mantine/core/styles/Combobox.css';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { chartPagePath } from '../../../../../src/modules/web/web-pages';
import { searchQuery, useInstrumentSearch } from '../../../features/search/api/search';

/** Between the symbol and the exchange in an option (a symbol may hold spaces, `NIFTY 50`). */
const SEP = ' · ';
const SHOWN = 10;

export function SymbolSwitcher() {
  const navigate = useNavigate();
  const [text, setText] = useState('');
  const [q] = useDebouncedValue(text.trim(), 250);
  const found = useInstrumentSearch(searchQuery({ q }), q.length >= 2);
  const data =
    q.length >= 2
      ? (found.data?.results ?? []).slice(0, SHOWN).map((r) => `${r.symbol}${SEP}${r.exchange}`)
      : [];
  return (
    <Autocomplete
      label="Open another chart"
      placeholder="Symbol, e.g. INFY"
      value={text}
      onChange={setText}
      data={[...new Set(data)]}
      // The server has searched already: every answer is offered as it came.
      filter={({ options }) => options}
      onOptionSubmit={(value) => {
        const at = value.lastIndexOf(SEP);
        if (at < 0) return;
        void navigate(chartPagePath(value.slice(at + SEP.length), value.slice(0, at)));
      }}
      autoComplete="off"
      maxLength={64}
      w={{ base: '100%', sm: 260 }}
      error={found.isError ? found.error.message : undefined}
    />
  );
}
