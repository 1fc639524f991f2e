/**
 * A page's GraphQL query: its data, its error and a reload, run again when the variables change,
 * and again by itself while the service cannot be reached (offline.ts). The last data stays shown
 * meanwhile; the offline indicator, not the page, says what is wrong.
 */
import { useCallback, useEffect, useState } from "preact/hooks";
import { gql } from "./api.ts";
import { UnreachableError, useRecovery } from "./offline.ts";

export function useQuery<T>(query: string, variables: Record<string, unknown> = {}) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState("");
  const [unreachable, setUnreachable] = useState(false);
  const key = JSON.stringify(variables);
  const reload = useCallback(async () => {
    try {
      setData(await gql<T>(query, variables));
      setError("");
      setUnreachable(false);
    } catch (err) {
      const lost = err instanceof UnreachableError;
      setUnreachable(lost);
      setError(lost ? "" : (err as Error).message);
    }
  }, [query, key]);
  useEffect(() => {
    reload();
  }, [reload]);
  useRecovery(unreachable, reload);
  return { data, error, reload };
}
