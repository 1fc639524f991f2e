/** A page's GraphQL query: its data, its error and a reload, run again when the variables change. */
import { useCallback, useEffect, useState } from "preact/hooks";
import { gql } from "./api.ts";

export function useQuery<T>(query: string, variables: Record<string, unknown> = {}) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState("");
  const key = JSON.stringify(variables);
  const reload = useCallback(async () => {
    try {
      setData(await gql<T>(query, variables));
      setError("");
    } catch (err) {
      setError((err as Error).message);
    }
  }, [query, key]);
  useEffect(() => {
    reload();
  }, [reload]);
  return { data, error, reload };
}
