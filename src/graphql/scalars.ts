/**
 * The schema's custom scalars (docs/graphql.md), from `graphql-scalars`: `DateTime` (RFC 3339
 * with an offset in; ISO 8601 UTC out), `Date` (a calendar day, `YYYY-MM-DD`) and `JSON` (any
 * JSON value). Bad input is refused during validation or variable coercion, so resolvers receive a
 * `Date`, a checked `YYYY-MM-DD` string or a parsed JSON value.
 */
import { GraphQLScalarType } from "graphql";
import { DateTimeISOResolver, JSONResolver, LocalDateResolver } from "graphql-scalars";

export const DateTimeScalar = new GraphQLScalarType({
  ...DateTimeISOResolver.toConfig(),
  name: "DateTime",
  description:
    "An instant: RFC 3339 with an offset on input (`2026-01-05T10:00:00+02:00`), ISO 8601 in UTC with milliseconds on output (`2026-01-05T08:00:00.000Z`).",
  specifiedByURL: "https://scalars.graphql.org/andimarek/date-time",
});

export const DateScalar = new GraphQLScalarType({
  ...LocalDateResolver.toConfig(),
  name: "Date",
  description:
    "A calendar day, `YYYY-MM-DD`, in the time zone the field names (usually the user's).",
  specifiedByURL: "https://scalars.graphql.org/andimarek/local-date",
});

export const JSONScalar = new GraphQLScalarType({
  ...JSONResolver.toConfig(),
  name: "JSON",
  description: "Any JSON value, sent as JSON (not as a string holding JSON).",
});

export const scalarResolvers = {
  DateTime: DateTimeScalar,
  Date: DateScalar,
  JSON: JSONScalar,
};
