/** Pure rules of users: profile changes. */
import assert from "node:assert/strict";
import { profilePatch as profileUserPatch } from "../../../src/features/users/rules.ts";

/** The patch with its user errors' messages (the fields are checked once below). */
const profilePatch = (...a: Parameters<typeof profileUserPatch>) => {
  const r = profileUserPatch(...a);
  return { ...r, errors: r.errors.map((e) => e.message) };
};

Deno.test("rules: profilePatch trims, clears names and checks username and time zone", () => {
  assert.deepEqual(profilePatch({ firstName: " Ada ", lastName: "", timeZone: "Europe/Berlin" }), {
    patch: { firstName: "Ada", lastName: null, username: undefined, timeZone: "Europe/Berlin" },
    errors: [],
  });
  assert.deepEqual(profilePatch({}).patch, {
    firstName: undefined,
    lastName: undefined,
    username: undefined,
    timeZone: undefined,
  });
  assert.deepEqual(profilePatch({ username: "  " }).errors, ["username must not be empty"]);
  assert.deepEqual(profilePatch({ username: "a b" }).errors, [
    "username must be 3 to 30 characters of letters, digits, '_', '.' or '-'",
  ]);
  assert.deepEqual(profilePatch({ firstName: "x".repeat(51) }).errors, [
    "firstName must be at most 50 characters",
  ]);
  assert.deepEqual(profilePatch({ timeZone: "Mars/Olympus" }).errors, [
    "timeZone must be an IANA time zone such as Europe/Berlin",
  ]);
});

Deno.test("rules: profilePatch names the argument at fault", () => {
  assert.deepEqual(profileUserPatch({ username: "a", timeZone: "Nowhere" }).errors, [
    {
      code: "invalid",
      message: "username must be 3 to 30 characters of letters, digits, '_', '.' or '-'",
      field: "username",
    },
    {
      code: "invalid",
      message: "timeZone must be an IANA time zone such as Europe/Berlin",
      field: "timeZone",
    },
  ]);
});
