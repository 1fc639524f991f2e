import assert from "node:assert/strict";
import { dataOf, gql } from "../../support/graphql.ts";
import { setup, type TestSetup } from "../../support/setup.ts";
import { ianaTimeZone, zoneFromClaims } from "../../../src/features/users/rules.ts";
import { findUserBySubject, insertUser } from "../../../src/features/users/store.ts";

/** The first request of a token of `sub` carrying `claims`: the user it signs in as. */
async function firstSignIn(s: TestSetup, sub: string, claims: Record<string, unknown>) {
  const token = await s.idp.token({ sub, claims, expiresIn: 3600 });
  return dataOf(await gql(s.t, `{ me { timeZone today } }`, {}, { token })).me;
}

Deno.test("users: a new user starts in the zone of the token's zoneinfo when it is a valid IANA zone", async () => {
  // 23:30 UTC on 5 January: already 6 January in Berlin, still the 5th in New York.
  const s = await setup({ start: "2026-01-05T23:30:00Z" });
  try {
    assert.deepEqual(await firstSignIn(s, "berlin", { zoneinfo: "Europe/Berlin" }), {
      timeZone: "Europe/Berlin",
      today: "2026-01-06",
    });
    assert.deepEqual(await firstSignIn(s, "ny", { zoneinfo: "america/new_york" }), {
      timeZone: "America/New_York",
      today: "2026-01-05",
    });
    // Invalid ones are ignored: the user starts in UTC, and signing in works as before.
    const invalid: [string, unknown][] = [
      ["mars", "Mars/Olympus"],
      ["offset", "+05:00"],
      ["number", 5],
      ["empty", ""],
      ["nul", "Europe/Berlin\u0000"],
      ["long", `Europe/${"x".repeat(100)}`],
      ["object", { zone: "Europe/Berlin" }],
    ];
    for (const [sub, zoneinfo] of invalid) {
      assert.deepEqual(await firstSignIn(s, sub, { zoneinfo }), {
        timeZone: "UTC",
        today: "2026-01-05",
      }, sub);
    }
    // Only the first sign-in reads it: a later token's zone does not move an existing user.
    assert.deepEqual(await firstSignIn(s, "berlin", { zoneinfo: "Asia/Tokyo" }), {
      timeZone: "Europe/Berlin",
      today: "2026-01-06",
    });
    // A zone the database does not know is never stored (the service then starts in UTC).
    const sql = s.t.deps.db.sql;
    const user = { username: "mars_1", firstName: null, lastName: null };
    assert.equal(
      await insertUser(sql, { ...user, subject: "mars-1", timeZone: "Mars/Olympus" }),
      "unknown_time_zone",
    );
    assert.equal(await findUserBySubject(sql, "mars-1"), null);
    const utc = await insertUser(sql, { ...user, subject: "mars-1", timeZone: null });
    assert.equal(typeof utc === "object" && utc?.timeZone, "UTC");
    // The date follows the clock and a zone the user sets.
    s.clock.advance(3600_000);
    const token = await s.idp.token({ sub: "ny", claims: {}, expiresIn: 3600 });
    const moved = await gql(
      s.t,
      `mutation { updateMe(timeZone: "Pacific/Kiritimati") { user { timeZone today } } }`,
      {},
      { token },
    );
    assert.deepEqual(dataOf(moved).updateMe.user, {
      timeZone: "Pacific/Kiritimati",
      today: "2026-01-06",
    });
  } finally {
    await s.close();
  }
});

Deno.test("users rules: zoneinfo and time zones are IANA names, offsets refused", () => {
  assert.equal(zoneFromClaims({ zoneinfo: "Europe/Paris" }), "Europe/Paris");
  assert.equal(zoneFromClaims({ zoneinfo: "utc" }), "UTC");
  assert.equal(zoneFromClaims({ zoneinfo: "Etc/GMT+5" }), "Etc/GMT+5");
  assert.equal(zoneFromClaims({}), null);
  assert.equal(zoneFromClaims({ zoneinfo: ["Europe/Paris"] }), null);
  for (const zone of ["+05:00", "-0300", "Z", "Europe/Nowhere", "Europe//Paris", " UTC"]) {
    assert.equal(ianaTimeZone(zone), null, zone);
  }
});
