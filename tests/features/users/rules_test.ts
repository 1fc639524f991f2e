/** Pure rules of users: profile changes. */
import assert from "node:assert/strict";
import { profilePatch } from "../../../src/features/users/rules.ts";

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
