/**
 * Light or dark: the reader's saved choice, else the system's preference. The same rule runs twice:
 * as an inline script before the first paint (THEME_SCRIPT, so a dark page never flashes white) and
 * in the toggle after hydration.
 */
export type ThemeChoice = 'system' | 'light' | 'dark';

export const THEME_KEY = 'heimdall-studio-theme';

/** Stringified into app/layout.tsx's <head>; keep it self-contained. */
export const THEME_SCRIPT = `(function(){try{var c=localStorage.getItem('${THEME_KEY}');var d=c==='dark'||(c!=='light'&&window.matchMedia('(prefers-color-scheme: dark)').matches);var e=document.documentElement;e.classList.toggle('dark',d);e.dataset.theme=d?'dark':'light';e.style.colorScheme=d?'dark':'light'}catch(_){}})()`;

export function readChoice(): ThemeChoice {
  try {
    const c = window.localStorage.getItem(THEME_KEY);
    return c === 'light' || c === 'dark' ? c : 'system';
  } catch {
    return 'system';
  }
}

export function applyTheme(choice: ThemeChoice): 'light' | 'dark' {
  const dark = choice === 'dark' || (choice === 'system' && window.matchMedia('(prefers-color-scheme: dark)').matches);
  const el = document.documentElement;
  el.classList.toggle('dark', dark);
  el.dataset.theme = dark ? 'dark' : 'light';
  el.style.colorScheme = dark ? 'dark' : 'light';
  return dark ? 'dark' : 'light';
}
