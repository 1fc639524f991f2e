/** Sends GraphQL operations to a test app. */
import type { TestApp } from "./app.ts";

export interface GqlResult {
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
  headers: Headers;
}

export async function gql(
  t: TestApp,
  query: string,
  variables?: Record<string, unknown>,
  options: { token?: string; headers?: Record<string, string>; operationName?: string } = {},
): Promise<GqlResult> {
  return await gqlRaw(t, { query, variables, operationName: options.operationName }, options);
}

export async function gqlRaw(
  t: TestApp,
  body: unknown,
  options: { token?: string; headers?: Record<string, string> } = {},
): Promise<GqlResult> {
  const res = await t.request("/graphql", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(options.token ? { SessionToken: options.token } : {}),
      ...options.headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

/** Asserts no top-level errors and returns `data`. */
// deno-lint-ignore no-explicit-any
export function dataOf(result: GqlResult): any {
  if (result.body?.errors?.length || result.status !== 200) {
    throw new Error(`GraphQL failed (${result.status}): ${JSON.stringify(result.body)}`);
  }
  return result.body.data;
}

/** The `extensions.code` of the first GraphQL error of a result (undefined when none). */
export function codeOf(result: GqlResult): string | undefined {
  return result.body?.errors?.[0]?.extensions?.code;
}

/** The selection of a payload's user errors (docs/graphql.md). */
export const USER_ERRORS = "errors { code message field }";

export interface UserErrorResult {
  code: string;
  message: string;
  field: string | null;
}

/** The codes of a payload's user errors, in order. */
export function codesOf(payload: { errors: UserErrorResult[] }): string[] {
  return payload.errors.map((e) => e.code);
}
