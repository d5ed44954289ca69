/**
 * The console's colour scheme (docs/rules/web.md#theme): it follows the system's by default and
 * can be switched to light or dark; the choice stays in this browser (the component kit keeps it
 * in local storage), since a trading screen stays open for hours.
 */
import {
  ActionIcon,
  Button,
  Tooltip,
  useMantineColorScheme,
  type MantineBreakpoint,
  type MantineColorScheme,
} from '@mantine/core';

const NEXT: Record<MantineColorScheme, MantineColorScheme> = { auto: 'light', light: 'dark', dark: 'auto' };
const SAID: Record<MantineColorScheme, string> = {
  auto: 'Theme: follows the system',
  light: 'Theme: light',
  dark: 'Theme: dark',
};
const GLYPH: Record<MantineColorScheme, string> = { auto: '◐', light: '☀', dark: '☾' };

export function ThemeSwitch({
  withLabel = false,
  visibleFrom,
}: {
  /** A button that says the theme (the phone's drawer), rather than an icon (the header). */
  withLabel?: boolean;
  visibleFrom?: MantineBreakpoint;
}) {
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  const next = NEXT[colorScheme];
  if (withLabel)
    return (
      <Button
        variant="default"
        fullWidth
        leftSection={<span aria-hidden="true">{GLYPH[colorScheme]}</span>}
        aria-label={`${SAID[colorScheme]}. Switch the theme`}
        onClick={() => setColorScheme(next)}
      >
        {SAID[colorScheme]}
      </Button>
    );
  return (
    <Tooltip label={`${SAID[colorScheme]} (switch to ${next === 'auto' ? 'the system’s' : next})`}>
      <ActionIcon
        variant="default"
        size="lg"
        visibleFrom={visibleFrom}
        aria-label={`${SAID[colorScheme]}. Switch the theme`}
        data-testid="theme-switch"
        data-scheme={colorScheme}
        onClick={() => setColorScheme(next)}
      >
        <span aria-hidden="true">{GLYPH[colorScheme]}</span>
      </ActionIcon>
    </Tooltip>
  );
}
