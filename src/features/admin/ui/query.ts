/**
 * A page's GraphQL query: its data, its error and a reload, run again when the variables change,
 * and again by itself while the service cannot be reached (offline.ts). The last data stays shown
 * meanwhile, marked `stale` while it answers other variables (a list's previous page or filter);
 * the offline indicator, not the page, says what is wrong.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { gql } from "./api.ts";
import { UnreachableError, useRecovery } from "./offline.ts";

export function useQuery<T>(query: string, variables: Record<string, unknown> = {}) {
  const [loaded, setLoaded] = useState<{ key: string; data: T } | null>(null);
  const [error, setError] = useState("");
  const [unreachable, setUnreachable] = useState(false);
  const key = JSON.stringify(variables);
  // An answer to variables since replaced is dropped: it may arrive after the newer one.
  const latest = useRef(key);
  latest.current = key;
  const reload = useCallback(async () => {
    try {
      const data = await gql<T>(query, variables);
      if (latest.current !== key) return;
      setLoaded({ key, data });
      setError("");
      setUnreachable(false);
    } catch (err) {
      if (latest.current !== key) return;
      const lost = err instanceof UnreachableError;
      setUnreachable(lost);
      setError(lost ? "" : (err as Error).message);
    }
  }, [query, key]);
  useEffect(() => {
    reload();
  }, [reload]);
  useRecovery(unreachable, reload);
  return { data: loaded?.data ?? null, stale: loaded?.key !== key, error, reload };
}
