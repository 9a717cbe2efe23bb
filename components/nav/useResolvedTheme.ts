'use client';
import { useEffect, useState } from 'react';

/** The theme in force ('light' or 'dark'), following the class the theme script and toggle set on <html>. */
export function useResolvedTheme(): 'light' | 'dark' {
  const [theme, setTheme] = useState<'light' | 'dark'>('light');
  useEffect(() => {
    const el = document.documentElement;
    const read = () => setTheme(el.classList.contains('dark') ? 'dark' : 'light');
    read();
    const obs = new MutationObserver(read);
    obs.observe(el, { attributes: true, attributeFilter: ['class'] });
    return () => obs.disconnect();
  }, []);
  return theme;
}
