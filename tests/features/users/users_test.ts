import assert from "node:assert/strict";
import { dataOf, gql, USER_ERRORS } from "../../support/graphql.ts";
import { setup } from "../../support/setup.ts";

Deno.test("users: updateMe validates every field and changes nothing on error", async () => {
  const s = await setup({ user: "user-1" });
  const ctx = { t: s.t, idp: s.idp, token: await s.token() };
  try {
    const other = await ctx.idp.token({ sub: "other", claims: { username: "taken_name" } });
    dataOf(await gql(ctx.t, "{ me { id } }", {}, { token: other }));
    const update = (args: string) =>
      gql(
        ctx.t,
        `mutation { updateMe(${args}) { user { username firstName lastName timeZone } ${USER_ERRORS} } }`,
        {},
        {
          token: ctx.token,
        },
      );
    const cases: [string, RegExp, string, string][] = [
      [`timeZone: "Mars/Olympus"`, /timeZone/, "invalid", "timeZone"],
      [`firstName: "${"x".repeat(51)}"`, /firstName must be at most 50/, "invalid", "firstName"],
      [`username: "a"`, /username must be 3 to 30/, "invalid", "username"],
      [`username: "bad name!"`, /username must be/, "invalid", "username"],
      [`username: "TAKEN_NAME"`, /already taken/, "username_taken", "username"],
    ];
    for (const [args, pattern, code, field] of cases) {
      const payload = dataOf(await update(args)).updateMe;
      assert.equal(payload.user, null, args);
      assert.equal(payload.errors.length, 1, args);
      assert.match(payload.errors[0].message, pattern, args);
      assert.deepEqual([payload.errors[0].code, payload.errors[0].field], [code, field], args);
    }
    const before =
      dataOf(await gql(ctx.t, "{ me { username timeZone firstName } }", {}, { token: ctx.token }))
        .me;
    assert.equal(before.timeZone, "UTC");
    const ok =
      dataOf(await update(`firstName: " Grace ", username: "grace_h", timeZone: "Europe/Berlin"`))
        .updateMe;
    assert.deepEqual(ok.errors, []);
    assert.deepEqual(ok.user, {
      username: "grace_h",
      firstName: "Grace",
      lastName: null,
      timeZone: "Europe/Berlin",
    });
    const wrongType = await gql(
      ctx.t,
      `mutation { updateMe(timeZone: 5) { errors { code } } }`,
      {},
      {
        token: ctx.token,
      },
    );
    assert.equal(wrongType.body.errors[0].extensions.code, "GRAPHQL_VALIDATION_FAILED");
  } finally {
    await s.close();
  }
});
