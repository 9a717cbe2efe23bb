'use client';
import { useEffect, useRef } from 'react';

/** A ref that brings its element into the middle of the view once `when` holds (an object named by a link). */
export function useScrollIntoView<T extends HTMLElement>(when: boolean) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (when) ref.current?.scrollIntoView({ block: 'center' });
  }, [when]);
  return ref;
}

/** Classes for the object a link pointed at. */
export const FOCUSED = 'bg-amber-50 ring-1 ring-inset ring-amber-300';
