/** Data loading for the pages: one API read per dependency change, cancelled when the page leaves. */
import { useEffect, useState } from 'preact/hooks';
import { ApiFailure } from './api';

/** The state of one read. */
export interface Loaded<T> {
  data: T | undefined;
  error: ApiFailure | undefined;
  loading: boolean;
  /** Read again. */
  reload: () => void;
}

/**
 * Run `load` when `deps` change (and on `reload`), keeping the last answer or error.
 * @param load the read; gets an AbortSignal that fires when the deps change or the page unmounts
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiFailure; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const ctl = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    load(ctl.signal).then(
      (data) => !ctl.signal.aborted && setState({ data, loading: false }),
      (e: unknown) => {
        if (ctl.signal.aborted) return;
        setState({
          error: e instanceof ApiFailure ? e : new ApiFailure(0, 'CLIENT', (e as Error).message),
          loading: false,
        });
      },
    );
    return () => ctl.abort();
  }, [...deps, tick]);
  return {
    data: state.data,
    error: state.error,
    loading: state.loading,
    reload: () => setTick((t) => t + 1),
  };
}
