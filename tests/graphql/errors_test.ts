/** The one error-masking decision (`maskError`), as a pure function. */
import assert from "node:assert/strict";
import { GraphQLError, parse } from "graphql";
import { forbidden, maskError, notFound } from "../../src/graphql/errors.ts";
import { DependencyUnavailableError } from "../../src/platform/dependency.ts";

const field = parse("{ goal { id } }").definitions[0];

Deno.test("maskError: an error raised on purpose keeps its message and code", () => {
  const raised = notFound("goal");
  const { error, hidden } = maskError(raised, "req-1");
  assert.equal(error, raised);
  assert.equal(error.message, "goal not found");
  assert.equal(error.extensions.code, "NOT_FOUND");
  assert.equal(hidden, null);
});

Deno.test("maskError: a coded error wrapped by a resolver path keeps its code and path", () => {
  const located = new GraphQLError("wrapped", {
    nodes: [field],
    path: ["goal"],
    originalError: forbidden("admins only"),
  });
  const { error, hidden } = maskError(located, "req-1");
  assert.equal(error.message, "admins only");
  assert.equal(error.extensions.code, "FORBIDDEN");
  assert.deepEqual(error.path, ["goal"]);
  assert.equal(hidden, null);
});

Deno.test("maskError: a refusal before any resolver ran is the caller's input", () => {
  const validation = new GraphQLError('Cannot query field "nope" on type "Query".', {
    nodes: [field],
  });
  const { error, hidden } = maskError(validation, "req-1");
  assert.equal(error.message, validation.message);
  assert.equal(error.extensions.code, "BAD_USER_INPUT");
  assert.deepEqual(error.locations, validation.locations);
  assert.equal(hidden, null);
  const coercion = new GraphQLError('Variable "$n" got invalid value', {
    originalError: new GraphQLError("Int cannot represent a string"),
  });
  assert.equal(maskError(coercion, "req-1").error.extensions.code, "BAD_USER_INPUT");
});

Deno.test("maskError: any other failure is INTERNAL with the request id, the cause hidden", () => {
  const cause = new Error("connection refused to 10.0.0.5:5432");
  const located = new GraphQLError(cause.message, {
    nodes: [field],
    path: ["goal"],
    originalError: cause,
  });
  const { error, hidden } = maskError(located, "req-42");
  assert.equal(error.message, "Unexpected error.");
  assert.deepEqual(error.extensions, { code: "INTERNAL", request_id: "req-42" });
  assert.deepEqual(error.path, ["goal"]);
  assert.equal(hidden, cause);
  assert.ok(!JSON.stringify(error.toJSON()).includes("10.0.0.5"));
});

Deno.test("maskError: masking a masked error changes nothing and hides nothing more", () => {
  const once = maskError(
    new GraphQLError("boom", { path: ["x"], originalError: new Error("boom") }),
    "r",
  );
  const twice = maskError(once.error, "r");
  assert.equal(twice.error, once.error);
  assert.equal(twice.hidden, null);
});

Deno.test("maskError: a dependency that is down is SERVICE_UNAVAILABLE with 503 and Retry-After", () => {
  const down = new DependencyUnavailableError("database", "no answer within 6000 ms");
  const wrapped = new GraphQLError("wrapped", {
    path: ["me"],
    originalError: new Error("x", { cause: down }),
  });
  const { error, hidden, unavailable } = maskError(wrapped, "req-1");
  assert.equal(hidden, null);
  assert.equal(unavailable, down);
  assert.equal(error.extensions.code, "SERVICE_UNAVAILABLE");
  assert.deepEqual(error.extensions.http, { status: 503, headers: { "retry-after": "5" } });
  assert.deepEqual(error.path, ["me"]);
  assert.ok(!error.message.includes("6000"), "the cause stays in the log");
});
