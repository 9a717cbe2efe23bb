'use client';
import { useEffect, useState } from 'react';
import { cx } from '@/components/ui/cx';
import { THEME_KEY, type ThemeChoice, applyTheme, readChoice } from './theme';

const CHOICES: { value: ThemeChoice; label: string }[] = [
  { value: 'system', label: 'Auto' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
];

/** Auto (the system's preference, followed live), light or dark; the choice is kept in this browser. */
export function ThemeToggle() {
  const [choice, setChoice] = useState<ThemeChoice | undefined>(undefined);
  // The script in <head> already applied the saved choice before the first paint: nothing to redo here.
  useEffect(() => setChoice(readChoice()), []);
  useEffect(() => {
    if (choice !== 'system') return;
    const mq = window.matchMedia('(prefers-color-scheme: dark)');
    const follow = () => applyTheme('system');
    mq.addEventListener('change', follow);
    return () => mq.removeEventListener('change', follow);
  }, [choice]);
  const pick = (c: ThemeChoice) => {
    try {
      if (c === 'system') window.localStorage.removeItem(THEME_KEY);
      else window.localStorage.setItem(THEME_KEY, c);
    } catch {
      // Storage refused (private mode): the choice lasts for this page.
    }
    setChoice(c);
    applyTheme(c);
  };
  return (
    <div role="group" aria-label="Colour theme" className="flex rounded-md bg-ink-800 p-0.5 text-[11px]" data-testid="theme-toggle">
      {CHOICES.map((c) => (
        <button
          key={c.value}
          type="button"
          aria-pressed={choice === c.value}
          onClick={() => pick(c.value)}
          title={c.value === 'system' ? 'Follow the system preference' : `Always ${c.value}`}
          className={cx('flex-1 rounded px-2 py-0.5 transition-colors', choice === c.value ? 'bg-ink-500/40 font-medium text-ink-50' : 'text-ink-400 hover:text-ink-50')}
        >
          {c.label}
        </button>
      ))}
    </div>
  );
}
