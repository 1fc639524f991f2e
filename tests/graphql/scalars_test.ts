/**
 * The custom scalars: `DateTime`, `Date` and `JSON` read and write their documented forms, and bad
 * input (a literal or a variable) is a BAD_USER_INPUT that names the argument or variable.
 */
import assert from "node:assert/strict";
import { setup } from "../support/setup.ts";
import { gql } from "../support/graphql.ts";
import type { SchemaModule } from "../../src/graphql/module.ts";

const probe: SchemaModule = {
  typeDefs: /* GraphQL */ `
    type ScalarProbe { at: DateTime day: Date data: JSON atIsDate: Boolean! }
    extend type Query { scalarProbe(at: DateTime, day: Date, data: JSON): ScalarProbe! }
  `,
  publicFields: ["scalarProbe"],
  resolvers: {
    Query: {
      scalarProbe: (_: unknown, args: { at?: Date; day?: string; data?: unknown }) => ({
        ...args,
        atIsDate: args.at === undefined || args.at instanceof Date,
      }),
    },
  },
};

async function withProbe(fn: (s: Awaited<ReturnType<typeof setup>>) => Promise<void>) {
  const s = await setup({ app: { extraModules: [probe] } });
  try {
    await fn(s);
  } finally {
    await s.close();
  }
}

Deno.test("scalars: DateTime in with any offset, out in UTC; Date as YYYY-MM-DD; JSON as JSON", () =>
  withProbe(async (s) => {
    const res = await gql(
      s.t,
      `query($at: DateTime, $day: Date, $data: JSON) {
        scalarProbe(at: $at, day: $day, data: $data) { at day data atIsDate } }`,
      { at: "2026-01-05T10:00:00.5+02:00", day: "2026-02-28", data: { a: [1, "x", null] } },
    );
    assert.deepEqual(res.body.data.scalarProbe, {
      at: "2026-01-05T08:00:00.500Z",
      day: "2026-02-28",
      data: { a: [1, "x", null] },
      atIsDate: true,
    });
    const literal = await gql(
      s.t,
      `{ scalarProbe(at: "2026-01-05T10:00:00Z", day: "2026-01-05", data: {b: true}) { at day data } }`,
    );
    assert.deepEqual(literal.body.data.scalarProbe, {
      at: "2026-01-05T10:00:00.000Z",
      day: "2026-01-05",
      data: { b: true },
    });
  }));

Deno.test("scalars: bad literals are GRAPHQL_VALIDATION_FAILED naming the argument, bad variables BAD_USER_INPUT", () =>
  withProbe(async (s) => {
    for (
      const [args, name] of [
        [`at: "2026-01-05"`, "at"],
        [`at: "2026-01-05T10:00:00"`, "at"],
        [`at: "tomorrow"`, "at"],
        [`at: 5`, "at"],
        [`day: "2026-02-30"`, "day"],
        [`day: "2026-1-5"`, "day"],
      ]
    ) {
      const res = await gql(s.t, `{ scalarProbe(${args}) { at } }`);
      assert.equal(res.status, 200, args);
      assert.equal(res.body.errors[0].extensions.code, "GRAPHQL_VALIDATION_FAILED", args);
      assert.match(res.body.errors[0].message, new RegExp(`Argument "${name}"`), args);
      assert.equal(res.body.data, undefined);
    }
    for (
      const [variables, name] of [
        [{ at: "2026-13-01T00:00:00Z" }, "at"],
        [{ at: "2026-01-05T10:00:00\u0000Z" }, "at"],
        [{ day: 20260105 }, "day"],
      ] as const
    ) {
      const res = await gql(
        s.t,
        `query($at: DateTime, $day: Date) { scalarProbe(at: $at, day: $day) { at } }`,
        variables,
      );
      assert.equal(res.body.errors[0].extensions.code, "BAD_USER_INPUT");
      assert.match(res.body.errors[0].message, new RegExp(`Variable "\\$${name}"`));
    }
  }));
